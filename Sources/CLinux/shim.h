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
