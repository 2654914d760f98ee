// The one C++ file behind kamera_zxing.h.
//
// Debian 12's zxing-cpp (1.4) is built with its assertions on, and some
// pictures trip one (fuzzing found a Micro QR finder pattern that aborts in
// FindConcentricPatternCorners). An abort cannot be caught, so zxing-cpp runs
// in a helper process: this same executable, started again with
// KAMERA_ZXING_SERVER set. The constructor below sees the variable and serves
// reads on file descriptor 3 before main would run; it exits when Kamera
// closes its end. A helper that dies or hangs costs the picture in hand, and
// the next read starts a new one.
#include "kamera_zxing.h"

// Result::text() as UTF-8 (a std::string), not UTF-16.
#define ZX_USE_UTF8 1

#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace {

const char *const serverVariable = "KAMERA_ZXING_SERVER";
const int serverDescriptor = 3;
// zxing-cpp with tryHarder reads a 4K frame in well under a second; a helper
// that takes this long is stuck.
const int replyTimeoutMilliseconds = 20000;
// The largest picture a helper takes, checked before it allocates.
const int32_t maxSide = 16384;
const int64_t maxPixels = int64_t(1) << 28;

bool readAll(int fd, void *buffer, size_t count) {
    auto *bytes = static_cast<uint8_t *>(buffer);
    while (count > 0) {
        ssize_t n = recv(fd, bytes, count, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes += n;
        count -= size_t(n);
    }
    return true;
}

bool writeAll(int fd, const void *buffer, size_t count) {
    const auto *bytes = static_cast<const uint8_t *>(buffer);
    while (count > 0) {
        ssize_t n = send(fd, bytes, count, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes += n;
        count -= size_t(n);
    }
    return true;
}

struct Request {
    int32_t formats, width, height;
};

void append(std::string &reply, int32_t value) { reply.append(reinterpret_cast<const char *>(&value), sizeof value); }

// A reply: the count, then each code's format, 8 corner numbers, text length
// and text; or -1, the error's length and the error.
std::string decode(const Request &request, const std::vector<uint8_t> &pixels) {
    std::string reply;
    try {
        ZXing::DecodeHints hints;
        hints.setFormats(static_cast<ZXing::BarcodeFormat>(request.formats));
        hints.setTryHarder(true);
        hints.setTryRotate(true);
        hints.setTryDownscale(false);
        ZXing::ImageView image(pixels.data(), request.width, request.height, ZXing::ImageFormat::Lum, request.width, 1);
        auto results = ZXing::ReadBarcodes(image, hints);
        results.erase(std::remove_if(results.begin(), results.end(), [](const ZXing::Result &r) { return !r.isValid(); }),
                      results.end());
        append(reply, int32_t(results.size()));
        for (const auto &result : results) {
            append(reply, int32_t(result.format()));
            const auto &position = result.position();
            for (int i = 0; i < 4; i++) {
                append(reply, position[i].x);
                append(reply, position[i].y);
            }
            const std::string text = result.text();
            append(reply, int32_t(text.size()));
            reply += text;
        }
        return reply;
    } catch (const std::exception &e) {
        reply.clear();
        const std::string what = e.what();
        append(reply, -1);
        append(reply, int32_t(what.size()));
        return reply + what;
    }
}

void serve(int fd) {
    std::vector<uint8_t> pixels;
    Request request;
    while (readAll(fd, &request, sizeof request)) {
        if (request.width < 1 || request.height < 1 || request.width > maxSide || request.height > maxSide ||
            int64_t(request.width) * request.height > maxPixels)
            return;
        pixels.resize(size_t(request.width) * size_t(request.height));
        if (!readAll(fd, pixels.data(), pixels.size())) return;
        std::string reply = decode(request, pixels);
        if (!writeAll(fd, reply.data(), reply.size())) return;
    }
}

__attribute__((constructor)) void serveWhenStartedAsTheHelper() {
    if (getenv(serverVariable) == nullptr) return;
    unsetenv(serverVariable);
    try {
        serve(serverDescriptor);
    } catch (...) {
    }
    _exit(0);
}

} // namespace

struct kamera_zxing {
    pid_t helper = -1;
    int socket = -1;
    struct Found {
        int format;
        int corners[8];
        std::string text;
    };
    std::vector<Found> results;
    std::string error;
};

namespace {

void stopHelper(kamera_zxing *reader) {
    if (reader->helper <= 0) return;
    kill(reader->helper, SIGKILL);
    close(reader->socket);
    while (waitpid(reader->helper, nullptr, 0) < 0 && errno == EINTR) {
    }
    reader->helper = -1;
    reader->socket = -1;
}

// Starts the helper: this executable again, in its own process group (so
// Ctrl-C at the terminal reaches Kamera alone), with no other descriptor of
// Kamera's and /dev/null for its standard streams.
bool startHelper(kamera_zxing *reader) {
    char path[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length <= 0) {
        reader->error = std::string("cannot find this program (/proc/self/exe) to start zxing-cpp's helper process: ") + strerror(errno);
        return false;
    }
    path[length] = 0;
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        reader->error = std::string("cannot make a socket for zxing-cpp's helper process: ") + strerror(errno);
        return false;
    }
    if (ends[1] == serverDescriptor) {
        // dup2 onto itself would keep close-on-exec set.
        int moved = fcntl(ends[1], F_DUPFD_CLOEXEC, serverDescriptor + 1);
        close(ends[1]);
        ends[1] = moved;
    }
    std::vector<std::string> variables;
    for (char **v = environ; *v; v++) variables.emplace_back(*v);
    variables.push_back(std::string(serverVariable) + "=1");
    std::vector<char *> envp;
    for (auto &v : variables) envp.push_back(v.data());
    envp.push_back(nullptr);
    char name[] = "kamera-zxing-helper";
    char *argv[] = {name, nullptr};

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, ends[1], serverDescriptor);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&actions, serverDescriptor + 1);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) sigaddset(&defaults, s);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    int failed = ends[1] < 0 ? errno : posix_spawn(&pid, path, &actions, &attributes, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (ends[1] >= 0) close(ends[1]);
    if (failed != 0) {
        close(ends[0]);
        reader->error = std::string("cannot start zxing-cpp's helper process (") + path + "): " + strerror(failed);
        return false;
    }
    reader->helper = pid;
    reader->socket = ends[0];
    return true;
}

// Why the helper is gone: it is reaped here.
std::string helperLost(kamera_zxing *reader, const char *doing) {
    int status = 0;
    kill(reader->helper, SIGKILL);
    close(reader->socket);
    while (waitpid(reader->helper, &status, 0) < 0 && errno == EINTR) {
    }
    reader->helper = -1;
    reader->socket = -1;
    std::string why = WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL
                          ? std::string("zxing-cpp stopped with signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")"
                          : std::string("zxing-cpp's helper process ") + doing;
    return why + " on this picture";
}

bool awaitReply(int fd) {
    pollfd entry{fd, POLLIN, 0};
    for (;;) {
        int n = poll(&entry, 1, replyTimeoutMilliseconds);
        if (n < 0 && errno == EINTR) continue;
        return n > 0;
    }
}

} // namespace

extern "C" kamera_zxing *kamera_zxing_new(void) {
    try {
        return new kamera_zxing();
    } catch (...) {
        return nullptr;
    }
}

extern "C" void kamera_zxing_free(kamera_zxing *reader) {
    stopHelper(reader);
    delete reader;
}

extern "C" int kamera_zxing_read(kamera_zxing *reader, int formats, const uint8_t *luma, int width, int height, int stride) {
    try {
        reader->error.clear();
        reader->results.clear();
        if (width < 1 || height < 1 || width > maxSide || height > maxSide || int64_t(width) * height > maxPixels) {
            reader->error = "a picture of " + std::to_string(width) + "x" + std::to_string(height) +
                            " is beyond the code reader (1 to " + std::to_string(maxSide) + " pixels a side)";
            return -1;
        }
        if (reader->helper <= 0 && !startHelper(reader)) return -1;
        const int fd = reader->socket;
        Request request{formats, width, height};
        bool sent = writeAll(fd, &request, sizeof request);
        if (stride == width) {
            sent = sent && writeAll(fd, luma, size_t(width) * size_t(height));
        } else {
            for (int y = 0; sent && y < height; y++) sent = writeAll(fd, luma + size_t(y) * size_t(stride), size_t(width));
        }
        if (!sent) {
            reader->error = helperLost(reader, "closed");
            return -2;
        }
        if (!awaitReply(fd)) {
            reader->error = helperLost(reader, "took over 20 s");
            return -2;
        }
        int32_t count = 0;
        bool ok = readAll(fd, &count, sizeof count);
        if (ok && count < 0) {
            int32_t length = 0;
            ok = readAll(fd, &length, sizeof length) && length >= 0 && length < 65536;
            if (ok) {
                reader->error.resize(size_t(length));
                ok = readAll(fd, reader->error.data(), size_t(length));
            }
            if (ok) return -1;
        }
        for (int32_t i = 0; ok && i < count; i++) {
            kamera_zxing::Found found{};
            int32_t numbers[10];
            ok = readAll(fd, numbers, sizeof numbers) && numbers[9] >= 0 && numbers[9] <= maxPixels;
            if (!ok) break;
            found.format = numbers[0];
            std::copy(numbers + 1, numbers + 9, found.corners);
            found.text.resize(size_t(numbers[9]));
            ok = readAll(fd, found.text.data(), found.text.size());
            reader->results.push_back(std::move(found));
        }
        if (!ok) {
            reader->results.clear();
            reader->error = helperLost(reader, "closed");
            return -2;
        }
        return count;
    } catch (const std::exception &e) {
        reader->error = e.what();
    } catch (...) {
        reader->error = "unknown error in the code reader";
    }
    reader->results.clear();
    return -1;
}

extern "C" const char *kamera_zxing_error(const kamera_zxing *reader) { return reader->error.c_str(); }

extern "C" int kamera_zxing_format(const kamera_zxing *reader, int index) { return reader->results[size_t(index)].format; }

extern "C" const char *kamera_zxing_text(const kamera_zxing *reader, int index, size_t *length) {
    const std::string &text = reader->results[size_t(index)].text;
    *length = text.size();
    return text.data();
}

extern "C" void kamera_zxing_corners(const kamera_zxing *reader, int index, int corners[8]) {
    std::copy(reader->results[size_t(index)].corners, reader->results[size_t(index)].corners + 8, corners);
}
