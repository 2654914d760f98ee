// The one C++ file behind kamera_faces.h.
#include "kamera_faces.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <atomic>
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
    std::vector<cv::Rect> found;
    // With two threads: the window sizes scanned, smallest first, what each
    // found (ungrouped), and the order they are taken in, costliest first.
    std::vector<cv::Size> windows;
    std::vector<std::vector<cv::Rect>> at_window;
    std::vector<size_t> order;
    std::vector<double> costs;
    double scale = 1;
    std::string error;
};

// OpenCV's scale steps, as detectMultiScale takes them.
static const double scale_factor = 1.2;
static const int neighbours = 3;
// OpenCV's own grouping distance (GROUP_EPS in cascadedetect.cpp).
static const double group_eps = 0.2;

// The window sizes detectMultiScale scans from `min_size` up in an image of
// `image` size, smallest first, into `faces->windows`, and into `faces->order`
// their places from the costliest: a scale's windows cost about the image's
// area over the scale squared, four times that from a scale of 2 up, where
// OpenCV steps by one pixel instead of two.
static void plan_windows(kamera_faces *faces, int min_size, cv::Size image) {
    const cv::Size window = faces->cascade.getOriginalWindowSize();
    std::vector<double> &costs = faces->costs;
    costs.clear();
    faces->windows.clear();
    if (window.width <= 0 || window.height <= 0) return;
    for (double factor = 1;; factor *= scale_factor) {
        cv::Size size(cvRound(window.width * factor), cvRound(window.height * factor));
        if (size.width > image.width || size.height > image.height) break;
        if (size.width < min_size || size.height < min_size) continue;
        faces->windows.push_back(size);
        costs.push_back((factor > 2 ? 4 : 1) / (factor * factor));
    }
    faces->order.resize(faces->windows.size());
    for (size_t i = 0; i < faces->order.size(); i++) faces->order[i] = i;
    std::stable_sort(faces->order.begin(), faces->order.end(), [&](size_t a, size_t b) { return costs[a] > costs[b]; });
    if (faces->at_window.size() < faces->windows.size()) faces->at_window.resize(faces->windows.size());
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
        if (threads > 1) plan_windows(faces, min_size, faces->scaled.size());
        if (threads <= 1 || faces->windows.size() < 2) {
            faces->cascade.detectMultiScale(faces->scaled, faces->found, scale_factor, neighbours, 0, cv::Size(min_size, min_size));
            return static_cast<int>(faces->found.size());
        }
        // Each scale alone (0 neighbours: ungrouped), taken in turn by this
        // thread and a second one, the costliest first, so that both finish
        // together; then grouped as one call groups them, in its order.
        std::atomic<size_t> next{0};
        auto scan = [&](cv::CascadeClassifier &classifier) {
            for (size_t k; (k = next.fetch_add(1)) < faces->order.size();) {
                const size_t i = faces->order[k];
                classifier.detectMultiScale(faces->scaled, faces->at_window[i], scale_factor, 0, 0, faces->windows[i], faces->windows[i]);
            }
        };
        std::exception_ptr failure;
        std::thread other([&] {
            try {
                scan(faces->second);
            } catch (...) {
                failure = std::current_exception();
                next = faces->order.size();
            }
        });
        try {
            scan(faces->cascade);
        } catch (...) {
            next = faces->order.size();
            other.join();
            throw;
        }
        other.join();
        if (failure) std::rethrow_exception(failure);
        for (size_t i = 0; i < faces->windows.size(); i++)
            faces->found.insert(faces->found.end(), faces->at_window[i].begin(), faces->at_window[i].end());
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
