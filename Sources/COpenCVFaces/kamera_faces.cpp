// The one C++ file behind kamera_faces.h.
#include "kamera_faces.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

struct kamera_faces {
    cv::CascadeClassifier cascade;
    cv::Mat scaled;
    std::vector<cv::Rect> found;
    double scale = 1;
    std::string error;
};

extern "C" kamera_faces *kamera_faces_new(const char *path, char *error, size_t error_size) {
    try {
        // OpenCV's own worker threads would outlive the run; detect on the caller's thread.
        cv::setNumThreads(0);
        auto *faces = new kamera_faces();
        bool loaded = false;
        try {
            loaded = faces->cascade.load(path) && !faces->cascade.empty();
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

extern "C" int kamera_faces_detect(kamera_faces *faces, const uint8_t *luma, int width, int height, int stride, double scale, int min_size) {
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
        faces->cascade.detectMultiScale(faces->scaled, faces->found, 1.2, 3, 0, cv::Size(min_size, min_size));
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
