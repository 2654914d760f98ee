#pragma once
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

// Macros Swift does not import.
static inline int kamera_averror(int e) { return AVERROR(e); }
static inline int kamera_averror_eof(void) { return AVERROR_EOF; }
static inline int64_t kamera_av_nopts(void) { return AV_NOPTS_VALUE; }

// libavformat writes through these to a file descriptor Kamera opened
// (an unnamed temporary, a file published early), passed as the opaque pointer.
static inline int kamera_avio_write(void *opaque, uint8_t *buf, int size) {
    int fd = (int)(intptr_t)opaque;
    int done = 0;
    while (done < size) {
        ssize_t n = write(fd, buf + done, (size_t)(size - done));
        if (n < 0) {
            if (errno == EINTR) continue;
            return AVERROR(errno);
        }
        done += (int)n;
    }
    return size;
}

static inline int64_t kamera_avio_seek(void *opaque, int64_t offset, int whence) {
    int fd = (int)(intptr_t)opaque;
    if (whence & AVSEEK_SIZE) {
        struct stat info;
        return fstat(fd, &info) == 0 ? (int64_t)info.st_size : AVERROR(errno);
    }
    off_t at = lseek(fd, (off_t)offset, whence & ~AVSEEK_FORCE);
    return at < 0 ? AVERROR(errno) : (int64_t)at;
}

/// An AVIOContext over `fd`; seekable when `seekable` (a regular file), else
/// write-only in order (a FIFO). NULL when out of memory.
static inline AVIOContext *kamera_avio_for_fd(int fd, int seekable) {
    const int size = 1 << 16;
    unsigned char *buffer = av_malloc(size);
    if (!buffer) return NULL;
    AVIOContext *io = avio_alloc_context(buffer, size, 1, (void *)(intptr_t)fd, NULL, kamera_avio_write,
                                         seekable ? kamera_avio_seek : NULL);
    if (!io) av_free(buffer);
    else io->seekable = seekable ? AVIO_SEEKABLE_NORMAL : 0;
    return io;
}

static inline void kamera_avio_free(AVIOContext **io) {
    if (*io) av_freep(&(*io)->buffer);
    avio_context_free(io);
}

// libavformat calls this while it waits on the network; nonzero ends the wait
// (AVERROR_EXIT). The opaque pointer is a flag the publisher raises to stop.
static inline int kamera_interrupt_when_set(void *flag) { return __atomic_load_n((const int *)flag, __ATOMIC_ACQUIRE); }
static inline AVIOInterruptCB kamera_interrupt_callback(int *flag) {
    AVIOInterruptCB callback = { kamera_interrupt_when_set, flag };
    return callback;
}
static inline void kamera_raise_flag(int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELEASE); }
