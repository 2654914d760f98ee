#define _GNU_SOURCE
#include "kamera_process.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int kamera_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

int kamera_socketpair(int ends[2]) { return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends); }

int kamera_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int kamera_dup_above(int fd, int lowest) { return fcntl(fd, F_DUPFD_CLOEXEC, lowest); }

int kamera_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

const int KAMERA_MSG_NOSIGNAL = MSG_NOSIGNAL;
