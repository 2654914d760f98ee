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

#include <setjmp.h>
#include <string.h>

// libpng's full write API, for the filter and zlib level the simplified API
// does not expose. libpng reports errors by longjmp, which must not cross
// Swift frames: it is caught here, in C, and turned into a return code.
struct kamera_png_sink {
    unsigned char *data;
    size_t size;
    size_t capacity;
};

static void kamera_png_write_bytes(png_structp png, png_bytep bytes, size_t length) {
    struct kamera_png_sink *sink = (struct kamera_png_sink *)png_get_io_ptr(png);
    if (length > sink->capacity - sink->size) png_error(png, "encoded image larger than its buffer");
    memcpy(sink->data + sink->size, bytes, length);
    sink->size += length;
}

static void kamera_png_flush(png_structp png) { (void)png; }

static void kamera_png_error(png_structp png, png_const_charp message) {
    char *buffer = (char *)png_get_error_ptr(png);
    strncpy(buffer, message, 255);
    buffer[255] = 0;
    png_longjmp(png, 1);
}

static void kamera_png_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

// Encodes RGBA rows (top first, `stride` bytes apart) as an 8-bit RGBA PNG
// into `out`; `filters` is a PNG_FILTER_* mask, `level` a zlib level (0-9).
// Returns 0 and the size in `written`, or 1 with a message (256 bytes).
static inline int kamera_png_encode(const unsigned char *rgba, unsigned width, unsigned height, size_t stride,
                                    int filters, int level, unsigned char *out, size_t capacity,
                                    size_t *written, char *message) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, message, kamera_png_error, kamera_png_warning);
    if (!png) { strcpy(message, "out of memory"); return 1; }
    png_infop info = png_create_info_struct(png);
    if (!info) { png_destroy_write_struct(&png, NULL); strcpy(message, "out of memory"); return 1; }
    struct kamera_png_sink sink = { out, 0, capacity };
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return 1;
    }
    png_set_write_fn(png, &sink, kamera_png_write_bytes, kamera_png_flush);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    png_set_compression_level(png, level);
    png_write_info(png, info);
    for (unsigned y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(rgba + (size_t)y * stride));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    *written = sink.size;
    return 0;
}

static const int kamera_png_filter_none = PNG_FILTER_NONE;
static const int kamera_png_all_filters = PNG_ALL_FILTERS;
