#pragma once
#include <gbm.h>
