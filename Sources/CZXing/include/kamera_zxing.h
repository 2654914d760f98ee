// Kamera's C face of zxing-cpp (a C++ library): a reader over an opaque
// handle, its results kept in the handle until the next read. No C++ type
// crosses this header, and no exception leaves the shim.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kamera_zxing kamera_zxing;

/// A reader for the formats in `formats` (zxing's BarcodeFormat bits); NULL when out of memory.
kamera_zxing *kamera_zxing_new(int formats);
void kamera_zxing_free(kamera_zxing *reader);

/// Reads every code in an 8-bit luma image (`stride` bytes a row). Returns the
/// number found, or -1 with the reason in `kamera_zxing_error`.
int kamera_zxing_read(kamera_zxing *reader, const uint8_t *luma, int width, int height, int stride);

/// The last error, or "".
const char *kamera_zxing_error(const kamera_zxing *reader);

/// Result `index` of the last read: its format bit, its text (UTF-8, `length`
/// bytes, valid until the next read) and its corners (top left, top right,
/// bottom right, bottom left, as x, y pairs in pixels).
int kamera_zxing_format(const kamera_zxing *reader, int index);
const char *kamera_zxing_text(const kamera_zxing *reader, int index, size_t *length);
void kamera_zxing_corners(const kamera_zxing *reader, int index, int corners[8]);

#ifdef __cplusplus
}
#endif
