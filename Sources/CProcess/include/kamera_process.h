// The Linux calls Lifecycle's ChildProcess and the code reader's helper need
// that Swift's Glibc module leaves out (GNU extensions, variadic calls). They
// are defined in process.c, with _GNU_SOURCE there alone: a module header
// that defines it sees other definitions of glibc's types than SwiftGlibc.
#pragma once
#include <spawn.h>
#include <sys/types.h>

/// Memory shared with a child by its descriptor (memfd_create), close-on-exec.
int kamera_memfd(const char *name);
/// Two connected stream sockets, close-on-exec.
int kamera_socketpair(int ends[2]);
/// A spawned child closes every descriptor from `lowest` up (glibc 2.34).
int kamera_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowest);
/// A descriptor's copy at `lowest` or above, close-on-exec (fcntl is variadic).
int kamera_dup_above(int fd, int lowest);
/// A descriptor that becomes readable when process `pid` exits (Linux 5.3);
/// -1 where the kernel has none (syscall is variadic).
int kamera_pidfd_open(pid_t pid);
/// send(2)'s flag: a closed socket is an error, not SIGPIPE.
extern const int KAMERA_MSG_NOSIGNAL;
