// The one C++ file behind kamera_zxing.h.
#include "kamera_zxing.h"

// Result::text() as UTF-8 (a std::string), not UTF-16.
#define ZX_USE_UTF8 1

#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <exception>
#include <new>
#include <string>
#include <vector>

struct kamera_zxing {
    ZXing::DecodeHints hints;
    std::vector<ZXing::Result> results;
    std::vector<std::string> texts;
    std::string error;
};

extern "C" kamera_zxing *kamera_zxing_new(int formats) {
    try {
        auto *reader = new kamera_zxing();
        reader->hints.setFormats(static_cast<ZXing::BarcodeFormat>(formats));
        reader->hints.setTryHarder(true);
        reader->hints.setTryRotate(true);
        reader->hints.setTryDownscale(false);
        return reader;
    } catch (...) {
        return nullptr;
    }
}

extern "C" void kamera_zxing_free(kamera_zxing *reader) { delete reader; }

extern "C" int kamera_zxing_read(kamera_zxing *reader, const uint8_t *luma, int width, int height, int stride) {
    try {
        reader->error.clear();
        reader->results.clear();
        reader->texts.clear();
        ZXing::ImageView image(luma, width, height, ZXing::ImageFormat::Lum, stride, 1);
        reader->results = ZXing::ReadBarcodes(image, reader->hints);
        reader->results.erase(std::remove_if(reader->results.begin(), reader->results.end(),
                                             [](const ZXing::Result &r) { return !r.isValid(); }),
                              reader->results.end());
        for (const auto &result : reader->results) reader->texts.push_back(result.text());
        return static_cast<int>(reader->results.size());
    } catch (const std::exception &e) {
        reader->error = e.what();
    } catch (...) {
        reader->error = "unknown error in zxing-cpp";
    }
    reader->results.clear();
    reader->texts.clear();
    return -1;
}

extern "C" const char *kamera_zxing_error(const kamera_zxing *reader) { return reader->error.c_str(); }

extern "C" int kamera_zxing_format(const kamera_zxing *reader, int index) {
    return static_cast<int>(reader->results[index].format());
}

extern "C" const char *kamera_zxing_text(const kamera_zxing *reader, int index, size_t *length) {
    const std::string &text = reader->texts[index];
    *length = text.size();
    return text.data();
}

extern "C" void kamera_zxing_corners(const kamera_zxing *reader, int index, int corners[8]) {
    const auto &position = reader->results[index].position();
    for (int i = 0; i < 4; i++) {
        corners[2 * i] = position[i].x;
        corners[2 * i + 1] = position[i].y;
    }
}
