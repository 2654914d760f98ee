#pragma once
#include <stdlib.h>
#include <string.h>
#include <libexif/exif-data.h>
#include <libexif/exif-entry.h>
#include <libexif/exif-utils.h>

// libexif leaves entries of free-form tags (ASCII, UNDEFINED, RATIONAL) to
// the caller's memory handling; these put one entry in `ifd`, replacing one
// of the same tag. Each returns 0, or -1 when out of memory.
static inline int kamera_exif_put(ExifData *data, ExifIfd ifd, ExifTag tag, ExifFormat format,
                                  unsigned long components, const void *bytes, unsigned int size) {
    ExifEntry *old = exif_content_get_entry(data->ifd[ifd], tag);
    if (old) exif_content_remove_entry(data->ifd[ifd], old);
    ExifMem *mem = exif_mem_new_default();
    if (!mem) return -1;
    ExifEntry *entry = exif_entry_new_mem(mem);
    void *buffer = size ? exif_mem_alloc(mem, size) : NULL;
    if (!entry || (size && !buffer)) {
        if (entry) exif_entry_unref(entry);
        exif_mem_unref(mem);
        return -1;
    }
    if (size) memcpy(buffer, bytes, size);
    entry->data = buffer;
    entry->size = size;
    entry->tag = tag;
    entry->components = components;
    entry->format = format;
    exif_content_add_entry(data->ifd[ifd], entry);
    exif_entry_unref(entry);
    exif_mem_unref(mem);
    return 0;
}

static inline int kamera_exif_ascii(ExifData *data, ExifIfd ifd, ExifTag tag, const char *text) {
    unsigned int size = (unsigned int)strlen(text) + 1;
    return kamera_exif_put(data, ifd, tag, EXIF_FORMAT_ASCII, size, text, size);
}

static inline int kamera_exif_short(ExifData *data, ExifIfd ifd, ExifTag tag, unsigned short value) {
    unsigned char bytes[2];
    exif_set_short(bytes, exif_data_get_byte_order(data), value);
    return kamera_exif_put(data, ifd, tag, EXIF_FORMAT_SHORT, 1, bytes, 2);
}

static inline int kamera_exif_long(ExifData *data, ExifIfd ifd, ExifTag tag, unsigned int value) {
    unsigned char bytes[4];
    exif_set_long(bytes, exif_data_get_byte_order(data), value);
    return kamera_exif_put(data, ifd, tag, EXIF_FORMAT_LONG, 1, bytes, 4);
}

static inline int kamera_exif_rational(ExifData *data, ExifIfd ifd, ExifTag tag, unsigned int numerator, unsigned int denominator) {
    unsigned char bytes[8];
    ExifRational value = { numerator, denominator };
    exif_set_rational(bytes, exif_data_get_byte_order(data), value);
    return kamera_exif_put(data, ifd, tag, EXIF_FORMAT_RATIONAL, 1, bytes, 8);
}

/// UserComment: the 8-byte character code ASCII, then the text.
static inline int kamera_exif_comment(ExifData *data, const char *text) {
    size_t length = strlen(text);
    unsigned char *bytes = malloc(8 + length);
    if (!bytes) return -1;
    memcpy(bytes, "ASCII\0\0\0", 8);
    memcpy(bytes + 8, text, length);
    int status = kamera_exif_put(data, EXIF_IFD_EXIF, EXIF_TAG_USER_COMMENT, EXIF_FORMAT_UNDEFINED,
                                 (unsigned long)(8 + length), bytes, (unsigned int)(8 + length));
    free(bytes);
    return status;
}

/// ExifVersion 0232, needed by readers to take the EXIF sub-IFD.
static inline int kamera_exif_version(ExifData *data) {
    return kamera_exif_put(data, EXIF_IFD_EXIF, EXIF_TAG_EXIF_VERSION, EXIF_FORMAT_UNDEFINED, 4, "0232", 4);
}

/// The orientation (tag 0x0112 of IFD 0) of the EXIF block in a JPEG's
/// markers, 1 to 8; 0 when there is none or libexif cannot read it.
static inline int kamera_exif_orientation(const unsigned char *jpeg, unsigned int size) {
    ExifData *data = exif_data_new_from_data(jpeg, size);
    if (!data) return 0;
    int orientation = 0;
    ExifEntry *entry = exif_content_get_entry(data->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (entry && entry->format == EXIF_FORMAT_SHORT && entry->components >= 1 && entry->data && entry->size >= 2) {
        orientation = exif_get_short(entry->data, exif_data_get_byte_order(data));
    }
    exif_data_unref(data);
    return orientation;
}
