#pragma once
// glibc's GNU extensions, which Swift's Glibc module leaves out.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>

// O_TMPFILE is a macro built from other macros, which Swift does not import.
static const int KAMERA_O_TMPFILE = O_TMPFILE;

static inline int kamera_set_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

#include <sys/ioctl.h>

// Bytes a pipe holds that its reader has not taken yet (FIONREAD works on
// either end); -1 on failure. ioctl and fcntl are variadic, which Swift cannot call.
static inline int kamera_pipe_unread(int fd) {
    int bytes = 0;
    return ioctl(fd, FIONREAD, &bytes) == 0 ? bytes : -1;
}

// Asks for a pipe buffer of at least `bytes`; returns the capacity it has (-1 on failure).
static inline int kamera_pipe_reserve(int fd, int bytes) {
    int size = fcntl(fd, F_GETPIPE_SZ);
    if (size >= bytes) return size;
    if (fcntl(fd, F_SETPIPE_SZ, bytes) >= 0) size = fcntl(fd, F_GETPIPE_SZ);
    return size;
}

#include <linux/kd.h>

// The console's mode (KD_TEXT or KD_GRAPHICS), -1 when `fd` is not a virtual
// terminal. Safe in a signal handler.
static inline int kamera_vt_get_mode(int fd) {
    int mode = 0;
    return ioctl(fd, KDGETMODE, &mode) == 0 ? mode : -1;
}

static inline int kamera_vt_set_mode(int fd, int mode) {
    return ioctl(fd, KDSETMODE, (unsigned long)mode);
}

static const int KAMERA_KD_TEXT = KD_TEXT;
static const int KAMERA_KD_GRAPHICS = KD_GRAPHICS;

