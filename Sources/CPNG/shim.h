#pragma once
#include <png.h>

// libpng's simplified API reports errors through png_image.message instead of
// longjmp, which Swift cannot catch. These constants are macros Swift cannot import.
static const png_uint_32 kamera_png_image_version = PNG_IMAGE_VERSION;
static const png_uint_32 kamera_png_format_rgba = PNG_FORMAT_RGBA;

// PNG_IMAGE_PNG_SIZE_MAX: an upper bound on the encoded size of `image`.
static inline png_alloc_size_t kamera_png_size_max(png_image image) {
    return PNG_IMAGE_PNG_SIZE_MAX(image);
}
