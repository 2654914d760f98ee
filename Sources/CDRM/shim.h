#pragma once
#include <xf86drm.h>
#include <xf86drmMode.h>
