// The one C++ file behind kamera_zxing.h: the calls into zxing-cpp.
#include "kamera_zxing.h"

// Result::text() as UTF-8 (a std::string), not UTF-16.
#define ZX_USE_UTF8 1

#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <exception>
#include <new>
#include <string>
#include <vector>

struct kamera_zxing_results {
    struct Found {
        int format;
        int corners[8];
        std::string text;
    };
    std::vector<Found> found;
    bool failed = false;
    std::string error;
};

extern "C" kamera_zxing_results *kamera_zxing_decode(int formats, const uint8_t *pixels, int width, int height, int stride,
                                                     int pixelStride, int options) {
    auto *results = new (std::nothrow) kamera_zxing_results();
    if (!results) return nullptr;
    try {
        ZXing::DecodeHints hints;
        hints.setFormats(static_cast<ZXing::BarcodeFormat>(formats));
        hints.setTryHarder(true);
        hints.setTryRotate((options & KAMERA_ZXING_TURNED_TOO) != 0);
        hints.setTryDownscale(false);
        if (options & KAMERA_ZXING_BLACK_AND_WHITE) hints.setBinarizer(ZXing::Binarizer::BoolCast);
        // Mirrored: the view starts at the row's last pixel and steps back (zxing-cpp's own turned views step so).
        const bool mirrored = (options & KAMERA_ZXING_MIRRORED) != 0;
        ZXing::ImageView image(pixels + (mirrored ? int64_t(width - 1) * pixelStride : 0), width, height, ZXing::ImageFormat::Lum,
                               stride, mirrored ? -pixelStride : pixelStride);
        for (const auto &result : ZXing::ReadBarcodes(image, hints)) {
            if (!result.isValid()) continue;
            kamera_zxing_results::Found found{};
            found.format = int(result.format());
            const auto &position = result.position();
            for (int i = 0; i < 4; i++) {
                // Corners lie on the modules' edges: x in the view is width - x here.
                found.corners[2 * i] = mirrored ? width - position[i].x : position[i].x;
                found.corners[2 * i + 1] = position[i].y;
            }
            found.text = result.text();
            results->found.push_back(std::move(found));
        }
    } catch (const std::exception &e) {
        results->found.clear();
        results->failed = true;
        try {
            results->error = e.what();
        } catch (...) {
        }
    } catch (...) {
        results->found.clear();
        results->failed = true;
    }
    return results;
}

extern "C" void kamera_zxing_results_free(kamera_zxing_results *results) { delete results; }

extern "C" int kamera_zxing_count(const kamera_zxing_results *results) {
    return results->failed ? -1 : int(results->found.size());
}

extern "C" const char *kamera_zxing_error(const kamera_zxing_results *results) { return results->error.c_str(); }

extern "C" int kamera_zxing_format(const kamera_zxing_results *results, int index) { return results->found[size_t(index)].format; }

extern "C" const char *kamera_zxing_text(const kamera_zxing_results *results, int index, size_t *length) {
    const std::string &text = results->found[size_t(index)].text;
    *length = text.size();
    return text.data();
}

extern "C" void kamera_zxing_corners(const kamera_zxing_results *results, int index, int corners[8]) {
    std::copy(results->found[size_t(index)].corners, results->found[size_t(index)].corners + 8, corners);
}
