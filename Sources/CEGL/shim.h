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
