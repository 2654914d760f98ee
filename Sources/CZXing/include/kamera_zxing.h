// Kamera's C face of zxing-cpp (a C++ library): a reader over an opaque
// handle, its results kept in the handle until the next read. No C++ type
// crosses this header, and no exception leaves the shim. zxing-cpp itself runs
// in a helper process the reader starts before its first read, so that an
// abort inside it costs one picture, not the program.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kamera_zxing kamera_zxing;

/// A reader; NULL when out of memory.
kamera_zxing *kamera_zxing_new(void);
void kamera_zxing_free(kamera_zxing *reader);

/// Starts kamera-zxing-helper now where it is installed, so that it is ready
/// by the first read (it loads while Kamera sets up the rest); the first read
/// waits for its hello, and starts this program as the helper if it fails.
/// Nothing is reported here.
void kamera_zxing_prestart(kamera_zxing *reader);

/// Memory the helper reads pictures from, at least `size` bytes, valid until
/// the next call with a larger size; NULL when it cannot be had. Every picture
/// given to `kamera_zxing_read` lies here: the helper reads it where it is.
uint8_t *kamera_zxing_buffer(kamera_zxing *reader, size_t size);

/// What `kamera_zxing_read` is given, as bits of `options`.
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

/// Reads every code of the formats in `formats` (zxing's BarcodeFormat bits)
/// in an 8-bit picture: pixel x, y at luma[y * stride + x * pixelStride] (a
/// view of every other row, say). Returns the number found;
/// -1 when the picture cannot be read (it is not in the reader's buffer, or
/// the helper cannot start), and -2 when
/// zxing-cpp's helper died or hung on this picture (the next read starts a new
/// one), each with the reason in `kamera_zxing_error`.
int kamera_zxing_read(kamera_zxing *reader, int formats, const uint8_t *luma, int width, int height, int stride, int pixelStride,
                      int options);

/// The last error, or "".
const char *kamera_zxing_error(const kamera_zxing *reader);

/// The program the helper was last started from: kamera-zxing-helper
/// ($KAMERA_ZXING_HELPER, else beside this executable or in ../lib/kamera
/// from it), or this executable itself when there is none, or it does not
/// start or is of another build; "" before one is started.
const char *kamera_zxing_program(const kamera_zxing *reader);

/// Result `index` of the last read: its format bit, its text (UTF-8, `length`
/// bytes, valid until the next read) and its corners (top left, top right,
/// bottom right, bottom left, as x, y pairs in pixels).
int kamera_zxing_format(const kamera_zxing *reader, int index);
const char *kamera_zxing_text(const kamera_zxing *reader, int index, size_t *length);
void kamera_zxing_corners(const kamera_zxing *reader, int index, int corners[8]);

/// The helper's own `main`: serves reads when started by a reader, else
/// says what the program is for and returns 2.
int kamera_zxing_helper_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
