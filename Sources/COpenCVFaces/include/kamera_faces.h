// Kamera's C face of OpenCV's cascade classifier (a C++ library): a face
// detector over an opaque handle, its boxes kept in the handle until the next
// detection. No C++ type crosses this header, and no exception leaves the shim.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kamera_faces kamera_faces;

/// A detector with the cascade in the XML file at `path`; NULL with the reason
/// in `error` (`error_size` bytes) when the file is missing or not a cascade.
kamera_faces *kamera_faces_new(const char *path, char *error, size_t error_size);
void kamera_faces_free(kamera_faces *faces);

/// Finds faces in an 8-bit luma image (`stride` bytes a row), looked at
/// `scale` times its size (0 < scale <= 1), histogram-equalized, no smaller
/// than `min_size` pixels of that scaled picture, on `threads` threads (1 or
/// 2: the scales taken in turn, the costliest first, by the caller's thread
/// and one started and joined within the call; the same faces either way). Returns the number
/// found, or -1 with the reason in `kamera_faces_error`.
int kamera_faces_detect(kamera_faces *faces, const uint8_t *luma, int width, int height, int stride, double scale, int min_size, int threads);

const char *kamera_faces_error(const kamera_faces *faces);

/// Box `index` of the last detection in the image's own pixels: x, y, width, height.
void kamera_faces_box(const kamera_faces *faces, int index, int box[4]);

#ifdef __cplusplus
}
#endif
