// The helper's side of kamera_zxing.h: serving reads to the reader that
// started this process. glibc passes main's arguments to constructors, so
// both kamera-zxing-helper and Kamera started as its own helper serve here,
// before any main runs (and before Swift's runtime starts). The variable
// alone does not make a helper: the name and a socket on descriptor 3 must
// come with it.
#define _GNU_SOURCE
#include "kamera_zxing.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const int64_t maxPixels = (int64_t)1 << 28;
static const int64_t maxMapped = (int64_t)1 << 30;

int kamera_zxing_request_fits(const kamera_zxing_request *r, int64_t size) {
    const int32_t side = KAMERA_ZXING_MAX_SIDE;
    return r->width >= 1 && r->height >= 1 && r->width <= side && r->height <= side && (int64_t)r->width * r->height <= maxPixels &&
           r->stride >= 1 && r->stride <= 8 * side && r->pixelStride >= 1 && r->pixelStride <= 8 * side && r->offset >= 0 &&
           r->offset + (int64_t)(r->height - 1) * r->stride + (int64_t)(r->width - 1) * r->pixelStride < size;
}

static int readAll(int fd, void *buffer, size_t count) {
    uint8_t *bytes = buffer;
    while (count > 0) {
        ssize_t n = recv(fd, bytes, count, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        bytes += n;
        count -= (size_t)n;
    }
    return 1;
}

static int writeAll(int fd, const void *buffer, size_t count) {
    const uint8_t *bytes = buffer;
    while (count > 0) {
        ssize_t n = send(fd, bytes, count, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        bytes += n;
        count -= (size_t)n;
    }
    return 1;
}

static int writeNumber(int fd, int32_t value) { return writeAll(fd, &value, sizeof value); }

// Writes the reply for one picture.
static int reply(int fd, const kamera_zxing_results *results) {
    const int count = kamera_zxing_count(results);
    if (count < 0) {
        const char *error = kamera_zxing_error(results);
        const size_t length = strlen(error) < 4096 ? strlen(error) : 4096;
        return writeNumber(fd, -1) && writeNumber(fd, (int32_t)length) && writeAll(fd, error, length);
    }
    if (!writeNumber(fd, count)) return 0;
    for (int i = 0; i < count; i++) {
        int32_t numbers[10];
        int corners[8];
        size_t length = 0;
        const char *text = kamera_zxing_text(results, i, &length);
        numbers[0] = kamera_zxing_format(results, i);
        kamera_zxing_corners(results, i, corners);
        for (int j = 0; j < 8; j++) numbers[1 + j] = corners[j];
        numbers[9] = (int32_t)length;
        if (!writeAll(fd, numbers, sizeof numbers) || !writeAll(fd, text, length)) return 0;
    }
    return 1;
}

static void serve(void) {
    const int fd = KAMERA_ZXING_SOCKET_DESCRIPTOR;
    const uint8_t *pictures = NULL;
    int64_t mapped = 0;
    kamera_zxing_request request;
    const uint32_t hello[3] = {KAMERA_ZXING_HELLO_MAGIC, KAMERA_ZXING_PROTOCOL_VERSION, (uint32_t)sizeof request};
    if (!writeAll(fd, hello, sizeof hello)) return;
    while (readAll(fd, &request, sizeof request)) {
        if (request.mapped != mapped) {
            if (pictures) munmap((void *)pictures, (size_t)mapped);
            pictures = NULL;
            struct stat file;
            if (request.mapped <= 0 || request.mapped > maxMapped || fstat(KAMERA_ZXING_PICTURES_DESCRIPTOR, &file) != 0 ||
                file.st_size < request.mapped)
                return;
            void *memory = mmap(NULL, (size_t)request.mapped, PROT_READ, MAP_SHARED, KAMERA_ZXING_PICTURES_DESCRIPTOR, 0);
            if (memory == MAP_FAILED) return;
            pictures = memory;
            mapped = request.mapped;
        }
        if (!kamera_zxing_request_fits(&request, mapped)) return;
        kamera_zxing_results *results = kamera_zxing_decode(request.formats, pictures + request.offset, request.width, request.height,
                                                            request.stride, request.pixelStride, request.options);
        const int written = results && reply(fd, results);
        kamera_zxing_results_free(results);
        if (!written) return;
    }
}

__attribute__((constructor)) static void serveWhenStartedAsTheHelper(int argc, char **argv, char **environment) {
    (void)environment;
    if (getenv(KAMERA_ZXING_SERVER_VARIABLE) == NULL) return;
    unsetenv(KAMERA_ZXING_SERVER_VARIABLE);
    struct stat socketFile;
    if (argc != 1 || argv == NULL || argv[0] == NULL || strcmp(argv[0], KAMERA_ZXING_HELPER_NAME) != 0 ||
        fstat(KAMERA_ZXING_SOCKET_DESCRIPTOR, &socketFile) != 0 || !S_ISSOCK(socketFile.st_mode))
        return;
    // zxing-cpp allocates a picture-sized matrix or two for every read. Above
    // glibc's mmap threshold each would be fresh pages from the kernel, faulted
    // in and unmapped again every read; kept in the heap they are reused.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    serve();
    _exit(0);
}

int kamera_zxing_helper_main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fputs("kamera-zxing-helper: Kamera starts this program to read codes (--detect codes); it is not run by hand\n", stderr);
    return 2;
}
