#pragma once
#include <turbojpeg.h>
