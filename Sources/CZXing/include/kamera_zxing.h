// Kamera's C face of zxing-cpp (a C++ library). No C++ type crosses this
// header, and no exception leaves the shim.
//
// zxing-cpp runs in a helper process (Detection's ZXingHelper starts it), so
// that an abort inside it costs one picture, not the program: Debian 12's
// zxing-cpp 1.4 is built with its assertions on, and some pictures trip one.
// The helper is kamera-zxing-helper where it is installed, else the program
// itself started again; either serves before main runs (kamera_zxing_helper.c).
// This header is the one definition of what the two sides say to each other.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a read is given, as bits of `options`.
enum {
    /// The picture is already black and white (0 black, anything else white):
    /// zxing-cpp skips its own binarizer.
    KAMERA_ZXING_BLACK_AND_WHITE = 1,
    /// Also read the picture turned a quarter (zxing-cpp's tryRotate).
    KAMERA_ZXING_TURNED_TOO = 2,
    /// Read the picture mirrored left to right (zxing-cpp 1.4 reads no
    /// mirrored code); corners are still in the picture's own pixels.
    KAMERA_ZXING_MIRRORED = 4,
};

/// The codes found in one picture, or why zxing-cpp could not read it.
typedef struct kamera_zxing_results kamera_zxing_results;

/// Reads every code of the formats in `formats` (zxing's BarcodeFormat bits)
/// in an 8-bit picture: pixel x, y at pixels[y * stride + x * pixelStride].
/// NULL when out of memory.
kamera_zxing_results *kamera_zxing_decode(int formats, const uint8_t *pixels, int width, int height, int stride, int pixelStride,
                                          int options);
void kamera_zxing_results_free(kamera_zxing_results *results);
/// The number of codes; -1 when zxing-cpp failed, with `kamera_zxing_error`.
int kamera_zxing_count(const kamera_zxing_results *results);
const char *kamera_zxing_error(const kamera_zxing_results *results);
/// Code `index`: its format bit, its text (UTF-8, `length` bytes) and its
/// corners (top left, top right, bottom right, bottom left, as x, y pairs).
int kamera_zxing_format(const kamera_zxing_results *results, int index);
const char *kamera_zxing_text(const kamera_zxing_results *results, int index, size_t *length);
void kamera_zxing_corners(const kamera_zxing_results *results, int index, int corners[8]);

// The helper's protocol. The reader starts the helper with
// KAMERA_ZXING_SERVER=1 in its environment, argv[0] KAMERA_ZXING_HELPER_NAME,
// a stream socket on descriptor 3 and the shared memory pictures lie in (a
// memfd) on descriptor 4. The helper writes a hello (magic, version, the
// request's size: three uint32s), then for each request it reads, a reply:
// the count (int32), then each code's format, 8 corner numbers and text
// length (int32s) and text; or -1, the error's length and the error. It
// exits when the reader closes its end, or at a request it cannot take.

#define KAMERA_ZXING_SERVER_VARIABLE "KAMERA_ZXING_SERVER"
#define KAMERA_ZXING_HELPER_NAME "kamera-zxing-helper"

enum {
    KAMERA_ZXING_SOCKET_DESCRIPTOR = 3,
    KAMERA_ZXING_PICTURES_DESCRIPTOR = 4,
    KAMERA_ZXING_HELLO_MAGIC = 0x4b5a5848,
    /// Bump whenever the request or the reply changes: a helper of another
    /// build (a stale kamera-zxing-helper beside a newer kamera) is not used.
    KAMERA_ZXING_PROTOCOL_VERSION = 5,
    /// The largest picture side the helper takes, checked before it reads.
    KAMERA_ZXING_MAX_SIDE = 16384,
};

/// A picture at `offset` in the shared memory, which is `mapped` bytes long.
typedef struct {
    int32_t formats, width, height, stride, pixelStride, options;
    int64_t offset, mapped;
} kamera_zxing_request;

/// Whether a request's picture is of a size the helper takes and lies inside
/// `size` bytes: pixel (x, y) is the byte at offset + y * stride + x * pixelStride.
int kamera_zxing_request_fits(const kamera_zxing_request *request, int64_t size);

/// The helper's own `main`: a helper started by a reader serves before main
/// runs, so this says what the program is for and returns 2.
int kamera_zxing_helper_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
