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
