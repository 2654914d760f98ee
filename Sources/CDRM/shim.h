#pragma once
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm.h>
#include <drm_mode.h>

// The DRM_IOCTL_* request numbers are function-like macros, which Swift does not import.
static const unsigned long KAMERA_DRM_IOCTL_MODE_CREATE_DUMB = DRM_IOCTL_MODE_CREATE_DUMB;
static const unsigned long KAMERA_DRM_IOCTL_MODE_MAP_DUMB = DRM_IOCTL_MODE_MAP_DUMB;
static const unsigned long KAMERA_DRM_IOCTL_MODE_DESTROY_DUMB = DRM_IOCTL_MODE_DESTROY_DUMB;

#include <sys/ioctl.h>

// Sets a CRTC with one plain ioctl: safe in a signal handler, where libdrm's
// drmModeSetCrtc (which may allocate) is not.
static inline int kamera_drm_set_crtc(int fd, struct drm_mode_crtc *crtc) {
    return ioctl(fd, DRM_IOCTL_MODE_SETCRTC, crtc);
}
