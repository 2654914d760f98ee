#pragma once
#include <EGL/egl.h>
#include <EGL/eglext.h>

// Extension entry points are looked up at run time; these wrappers keep the
// function-pointer casts out of Swift.
static inline EGLBoolean kamera_eglQueryDevices(EGLint max, EGLDeviceEXT *devices, EGLint *count) {
    PFNEGLQUERYDEVICESEXTPROC fn = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    if (!fn) return EGL_FALSE;
    return fn(max, devices, count);
}

static inline const char *kamera_eglQueryDeviceString(EGLDeviceEXT device, EGLint name) {
    PFNEGLQUERYDEVICESTRINGEXTPROC fn = (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
    if (!fn) return 0;
    return fn(device, name);
}

// glEGLImageTargetTexture2DOES (GL_OES_EGL_image) binds an EGLImage to the
// texture bound to `target`; GL extension entry points come from EGL.
static inline int kamera_glEGLImageTargetTexture2DOES(unsigned int target, void *image) {
    typedef void (*Fn)(unsigned int, void *);
    Fn fn = (Fn)eglGetProcAddress("glEGLImageTargetTexture2DOES");
    if (!fn) return 0;
    fn(target, image);
    return 1;
}

// A sync file fd for the GPU work queued so far (EGL_ANDROID_native_fence_sync),
// or -1: KMS can wait on it instead of the CPU waiting for rendering.
static inline int kamera_egl_native_fence(EGLDisplay display) {
    PFNEGLCREATESYNCKHRPROC create = (PFNEGLCREATESYNCKHRPROC)eglGetProcAddress("eglCreateSyncKHR");
    PFNEGLDESTROYSYNCKHRPROC destroy = (PFNEGLDESTROYSYNCKHRPROC)eglGetProcAddress("eglDestroySyncKHR");
    PFNEGLDUPNATIVEFENCEFDANDROIDPROC dup = (PFNEGLDUPNATIVEFENCEFDANDROIDPROC)eglGetProcAddress("eglDupNativeFenceFDANDROID");
    if (!create || !destroy || !dup) return -1;
    EGLint attributes[] = { EGL_SYNC_NATIVE_FENCE_FD_ANDROID, EGL_NO_NATIVE_FENCE_FD_ANDROID, EGL_NONE };
    EGLSyncKHR sync = create(display, EGL_SYNC_NATIVE_FENCE_ANDROID, attributes);
    if (sync == EGL_NO_SYNC_KHR) return -1;
    int fd = dup(display, sync);
    destroy(display, sync);
    return fd;
}
