// The one C++ file behind kamera_faces.h.
#include "kamera_faces.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <vector>

struct kamera_faces {
    cv::CascadeClassifier cascade;
    // A second copy for the second thread: one classifier's buffers are not shared between threads.
    cv::CascadeClassifier second;
    cv::Mat scaled;
    std::vector<cv::Rect> found, large;
    double scale = 1;
    std::string error;
};

// OpenCV's scale steps, as detectMultiScale takes them.
static const double scale_factor = 1.2;
static const int neighbours = 3;
// OpenCV's own grouping distance (GROUP_EPS in cascadedetect.cpp).
static const double group_eps = 0.2;

// The window sizes detectMultiScale scans from `min_size` up in an image of
// `image` size, and the first one of the larger half of the work: a scale's
// windows cost about the image's area over the scale squared, four times
// that from a scale of 2 up, where OpenCV steps by one pixel instead of two.
static cv::Size split_window(cv::Size window, int min_size, cv::Size image) {
    std::vector<std::pair<cv::Size, double>> sizes;
    double total = 0;
    if (window.width <= 0 || window.height <= 0) return cv::Size();
    for (double factor = 1;; factor *= scale_factor) {
        cv::Size size(cvRound(window.width * factor), cvRound(window.height * factor));
        if (size.width > image.width || size.height > image.height) break;
        if (size.width < min_size || size.height < min_size) continue;
        const double cost = (factor > 2 ? 4 : 1) / (factor * factor);
        sizes.push_back({size, cost});
        total += cost;
    }
    double sum = 0;
    for (size_t i = 0; i + 1 < sizes.size(); i++) {
        sum += sizes[i].second;
        if (sum >= total / 2) return sizes[i + 1].first;
    }
    return cv::Size();
}

extern "C" kamera_faces *kamera_faces_new(const char *path, char *error, size_t error_size) {
    try {
        // OpenCV's own worker threads (TBB's) would outlive the run: detect on the caller's
        // thread, and on one of the shim's own, joined within each detection.
        cv::setNumThreads(0);
        auto *faces = new kamera_faces();
        bool loaded = false;
        try {
            loaded = faces->cascade.load(path) && !faces->cascade.empty() && faces->second.load(path);
        } catch (...) {
            // OpenCV's own message names its source files; Kamera's says what the file is not.
        }
        if (!loaded) {
            std::snprintf(error, error_size, "%s", "not a cascade OpenCV can load");
            delete faces;
            return nullptr;
        }
        return faces;
    } catch (const std::exception &e) {
        std::snprintf(error, error_size, "%s", e.what());
    } catch (...) {
        std::snprintf(error, error_size, "%s", "unknown error in OpenCV");
    }
    return nullptr;
}

extern "C" void kamera_faces_free(kamera_faces *faces) { delete faces; }

extern "C" int kamera_faces_detect(kamera_faces *faces, const uint8_t *luma, int width, int height, int stride, double scale, int min_size, int threads) {
    try {
        faces->error.clear();
        faces->found.clear();
        faces->scale = scale;
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(luma), static_cast<size_t>(stride));
        if (scale < 1) {
            cv::resize(image, faces->scaled, cv::Size(), scale, scale, cv::INTER_AREA);
        } else {
            image.copyTo(faces->scaled);
        }
        cv::equalizeHist(faces->scaled, faces->scaled);
        cv::Size split = threads > 1 ? split_window(faces->cascade.getOriginalWindowSize(), min_size, faces->scaled.size()) : cv::Size();
        if (split.width == 0) {
            faces->cascade.detectMultiScale(faces->scaled, faces->found, scale_factor, neighbours, 0, cv::Size(min_size, min_size));
            return static_cast<int>(faces->found.size());
        }
        // The scales from `split` up on a second thread, the smaller ones here, each ungrouped
        // (0 neighbours); then grouped together as one call groups them.
        std::exception_ptr failure;
        std::thread larger([&] {
            try {
                faces->second.detectMultiScale(faces->scaled, faces->large, scale_factor, 0, 0, split);
            } catch (...) {
                failure = std::current_exception();
            }
        });
        try {
            faces->cascade.detectMultiScale(faces->scaled, faces->found, scale_factor, 0, 0, cv::Size(min_size, min_size),
                                            cv::Size(split.width - 1, split.height - 1));
        } catch (...) {
            larger.join();
            throw;
        }
        larger.join();
        if (failure) std::rethrow_exception(failure);
        faces->found.insert(faces->found.end(), faces->large.begin(), faces->large.end());
        cv::groupRectangles(faces->found, neighbours, group_eps);
        return static_cast<int>(faces->found.size());
    } catch (const std::exception &e) {
        faces->error = e.what();
    } catch (...) {
        faces->error = "unknown error in OpenCV";
    }
    faces->found.clear();
    return -1;
}

extern "C" const char *kamera_faces_error(const kamera_faces *faces) { return faces->error.c_str(); }

extern "C" void kamera_faces_box(const kamera_faces *faces, int index, int box[4]) {
    const cv::Rect &r = faces->found[index];
    const double s = faces->scale;
    box[0] = static_cast<int>(r.x / s + 0.5);
    box[1] = static_cast<int>(r.y / s + 0.5);
    box[2] = static_cast<int>(r.width / s + 0.5);
    box[3] = static_cast<int>(r.height / s + 0.5);
}
