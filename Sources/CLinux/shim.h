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

#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>

// Memory shared with a child by its descriptor (memfd_create), close-on-exec.
static inline int kamera_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

// Two connected stream sockets, close-on-exec.
static inline int kamera_socketpair(int ends[2]) { return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends); }

// A spawned child closes every descriptor from `lowest` up (glibc 2.34).
static inline int kamera_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

// A descriptor's copy at `lowest` or above, close-on-exec (fcntl is variadic).
static inline int kamera_dup_above(int fd, int lowest) { return fcntl(fd, F_DUPFD_CLOEXEC, lowest); }

static const int KAMERA_MSG_NOSIGNAL = MSG_NOSIGNAL;

#include <sys/syscall.h>
#include <unistd.h>

// A descriptor that becomes readable when process `pid` exits (Linux 5.3);
// -1 where the kernel has none. syscall is variadic, which Swift cannot call.
static inline int kamera_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }
