// The one C++ file behind kamera_zxing.h.
//
// Debian 12's zxing-cpp (1.4) is built with its assertions on, and some
// pictures trip one (fuzzing found a Micro QR finder pattern that aborts in
// FindConcentricPatternCorners). An abort cannot be caught, so zxing-cpp runs
// in a helper process, started with KAMERA_ZXING_SERVER set: the small
// kamera-zxing-helper program where it is installed (it loads zxing-cpp
// alone, and starts in a few milliseconds), else this same executable again
// (which loads every library Kamera links: tens of milliseconds). In either,
// the constructor below sees the variable and serves reads on file descriptor
// 3 before main would run; it says hello first (its protocol version: a helper
// of another build is not used), and exits when Kamera closes its end.
// Pictures travel in memory both share (a memfd, descriptor 4): a request
// names where the picture lies, and only the results come back on the socket. A helper that dies or hangs costs the picture in hand, and
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
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace {

const char *const serverVariable = "KAMERA_ZXING_SERVER";
const char *const helperName = "kamera-zxing-helper";
const int socketDescriptor = 3;
// What a helper says first: a helper of another build (a stale
// kamera-zxing-helper beside a newer kamera) speaks another version and is
// not used. Bump the version whenever Request or the reply changes.
const uint32_t helloMagic = 0x4b5a5848;
const uint32_t protocolVersion = 4;
const int pictureDescriptor = 4;
// zxing-cpp with tryHarder reads a 4K frame in well under a second; a helper
// that takes this long is stuck.
const int replyTimeoutMilliseconds = 20000;
// The largest picture a helper takes, checked before it allocates.
const int32_t maxSide = 16384;
const int64_t maxPixels = int64_t(1) << 28;
const size_t maxBuffer = size_t(1) << 30;

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

// A picture at `offset` in the shared memory, which is `mapped` bytes long.
struct Request {
    int32_t formats, width, height, stride, pixelStride, options;
    int64_t offset, mapped;
};

// A picture of a size the helper takes, lying inside `size` bytes of shared
// memory: pixel (x, y) is the byte at offset + y * stride + x * pixelStride.
bool fits(int64_t offset, int32_t width, int32_t height, int32_t stride, int32_t pixelStride, int64_t size) {
    return width >= 1 && height >= 1 && width <= maxSide && height <= maxSide && int64_t(width) * height <= maxPixels &&
           stride >= 1 && stride <= 8 * maxSide && pixelStride >= 1 && pixelStride <= 8 * maxSide && offset >= 0 &&
           offset + int64_t(height - 1) * stride + int64_t(width - 1) * pixelStride < size;
}

void append(std::string &reply, int32_t value) { reply.append(reinterpret_cast<const char *>(&value), sizeof value); }

// A reply: the count, then each code's format, 8 corner numbers, text length
// and text; or -1, the error's length and the error.
std::string decode(const Request &request, const uint8_t *pixels) {
    std::string reply;
    try {
        ZXing::DecodeHints hints;
        hints.setFormats(static_cast<ZXing::BarcodeFormat>(request.formats));
        hints.setTryHarder(true);
        hints.setTryRotate((request.options & KAMERA_ZXING_TURNED_TOO) != 0);
        hints.setTryDownscale(false);
        if (request.options & KAMERA_ZXING_BLACK_AND_WHITE) hints.setBinarizer(ZXing::Binarizer::BoolCast);
        // Mirrored: the view starts at the row's last pixel and steps back (zxing-cpp's own turned views step so).
        const bool mirrored = (request.options & KAMERA_ZXING_MIRRORED) != 0;
        const int lastX = request.width - 1;
        ZXing::ImageView image(pixels + (mirrored ? int64_t(lastX) * request.pixelStride : 0), request.width, request.height,
                               ZXing::ImageFormat::Lum, request.stride, mirrored ? -request.pixelStride : request.pixelStride);
        auto results = ZXing::ReadBarcodes(image, hints);
        results.erase(std::remove_if(results.begin(), results.end(), [](const ZXing::Result &r) { return !r.isValid(); }),
                      results.end());
        append(reply, int32_t(results.size()));
        for (const auto &result : results) {
            append(reply, int32_t(result.format()));
            const auto &position = result.position();
            for (int i = 0; i < 4; i++) {
                // Corners lie on the modules' edges: x in the view is width - x here.
                append(reply, mirrored ? request.width - position[i].x : position[i].x);
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

void serve() {
    const uint8_t *pictures = nullptr;
    int64_t mapped = 0;
    Request request;
    const uint32_t hello[3] = {helloMagic, protocolVersion, uint32_t(sizeof request)};
    if (!writeAll(socketDescriptor, hello, sizeof hello)) return;
    while (readAll(socketDescriptor, &request, sizeof request)) {
        if (request.mapped != mapped) {
            if (pictures) munmap(const_cast<uint8_t *>(pictures), size_t(mapped));
            pictures = nullptr;
            struct stat file;
            if (request.mapped <= 0 || size_t(request.mapped) > maxBuffer || fstat(pictureDescriptor, &file) != 0 ||
                file.st_size < request.mapped)
                return;
            void *memory = mmap(nullptr, size_t(request.mapped), PROT_READ, MAP_SHARED, pictureDescriptor, 0);
            if (memory == MAP_FAILED) return;
            pictures = static_cast<const uint8_t *>(memory);
            mapped = request.mapped;
        }
        if (!fits(request.offset, request.width, request.height, request.stride, request.pixelStride, mapped)) return;
        std::string reply = decode(request, pictures + request.offset);
        if (!writeAll(socketDescriptor, reply.data(), reply.size())) return;
    }
}

// glibc passes main's arguments to constructors, so both kamera-zxing-helper
// and Kamera started as its own helper serve here, before any main runs. The
// variable alone does not make a helper: the name and a socket on descriptor 3
// must come with it.
__attribute__((constructor)) void serveWhenStartedAsTheHelper(int argc, char **argv, char **) {
    if (getenv(serverVariable) == nullptr) return;
    unsetenv(serverVariable);
    struct stat socketFile;
    if (argc != 1 || argv == nullptr || argv[0] == nullptr || strcmp(argv[0], helperName) != 0 ||
        fstat(socketDescriptor, &socketFile) != 0 || !S_ISSOCK(socketFile.st_mode))
        return;
    // zxing-cpp allocates a picture-sized matrix or two for every read. Above
    // glibc's mmap threshold each would be fresh pages from the kernel, faulted
    // in and unmapped again every read; kept in the heap they are reused.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    try {
        serve();
    } catch (...) {
    }
    _exit(0);
}

} // namespace

struct kamera_zxing {
    pid_t helper = -1;
    int socket = -1;
    // The shared memory pictures are read from, and Kamera's mapping of it.
    int memory = -1;
    uint8_t *buffer = nullptr;
    size_t size = 0;
    struct Found {
        int format;
        int corners[8];
        std::string text;
    };
    std::vector<Found> results;
    std::string error;
    // The program the helper was last started from.
    std::string program;
    // The helper said hello in this build's protocol (a helper started early has not yet).
    bool greeted = false;
};

namespace {

// The readers with a helper running. At exit the helpers still running are
// stopped and reaped, so that their time counts as Kamera's (a parent's
// rusage, time(1)) and no process outlives Kamera's exit.
std::mutex liveLock;
std::vector<kamera_zxing *> live;

// Stops and reaps the helper; its wait status.
int stopHelper(kamera_zxing *reader) {
    if (reader->helper <= 0) return 0;
    int status = 0;
    kill(reader->helper, SIGKILL);
    close(reader->socket);
    while (waitpid(reader->helper, &status, 0) < 0 && errno == EINTR) {
    }
    reader->helper = -1;
    reader->socket = -1;
    reader->greeted = false;
    std::lock_guard<std::mutex> hold(liveLock);
    live.erase(std::remove(live.begin(), live.end(), reader), live.end());
    return status;
}

void stopEveryHelper() {
    std::vector<kamera_zxing *> readers;
    {
        std::lock_guard<std::mutex> hold(liveLock);
        readers = live;
    }
    for (auto *reader : readers) stopHelper(reader);
}

void track(kamera_zxing *reader) {
    static const bool registered = atexit(stopEveryHelper) == 0;
    (void)registered;
    std::lock_guard<std::mutex> hold(liveLock);
    live.push_back(reader);
}

// `fd` moved above 3 and 4, where the helper finds its two: dup2 onto
// itself would keep close-on-exec set, and a later dup2 would overwrite it.
int aboveHelperDescriptors(int fd) {
    if (fd < 0 || fd > pictureDescriptor) return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, pictureDescriptor + 1);
    close(fd);
    return moved;
}

// Makes the shared memory, without room yet, for a helper started before the first picture.
bool makeMemory(kamera_zxing *reader) {
    if (reader->memory < 0) reader->memory = aboveHelperDescriptors(memfd_create("kamera-zxing-pictures", MFD_CLOEXEC));
    return reader->memory >= 0;
}

// Makes the shared memory hold at least `size` bytes.
bool grow(kamera_zxing *reader, size_t size) {
    if (size <= reader->size) return true;
    if (size > maxBuffer) {
        reader->error = "the code reader's pictures would take " + std::to_string(size) + " bytes, over its " +
                        std::to_string(maxBuffer) + "-byte limit";
        return false;
    }
    size = (size + (1 << 20) - 1) & ~size_t((1 << 20) - 1);
    void *memory = MAP_FAILED;
    if (makeMemory(reader) && ftruncate(reader->memory, off_t(size)) == 0)
        memory = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, reader->memory, 0);
    if (memory == MAP_FAILED) {
        reader->error = std::string("cannot make shared memory for the code reader's pictures: ") + strerror(errno);
        return false;
    }
    if (reader->buffer) munmap(reader->buffer, reader->size);
    reader->buffer = static_cast<uint8_t *>(memory);
    reader->size = size;
    return true;
}

// The kamera-zxing-helper to start: $KAMERA_ZXING_HELPER when set, else the
// one beside this executable (a build folder) or in ../lib/kamera from it (an
// installed PREFIX/bin/kamera); "" if none.
std::string installedHelper(const std::string &self) {
    if (const char *chosen = getenv("KAMERA_ZXING_HELPER"); chosen && *chosen) return chosen;
    const std::string folder = self.substr(0, self.rfind('/') + 1);
    for (const std::string candidate : {folder + helperName, folder + "../lib/kamera/" + helperName})
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    return "";
}

// Starts `path` as the helper in its own process group (so Ctrl-C at the
// terminal reaches Kamera alone), with no other descriptor of Kamera's,
// /dev/null for its standard streams and no Swift backtracer (its report
// would go nowhere and take seconds). fork and exec rather than
// posix_spawn: ThreadSanitizer breaks in posix_spawn's vfork-style child.
bool startHelper(kamera_zxing *reader, const std::string &path) {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        reader->error = std::string("cannot make a socket for zxing-cpp's helper process: ") + strerror(errno);
        return false;
    }
    const int helperEnd = aboveHelperDescriptors(ends[1]);
    // Everything the child needs is made before fork: after it, only async-signal-safe calls.
    std::vector<std::string> variables;
    for (char **v = environ; *v; v++)
        if (strncmp(*v, "SWIFT_BACKTRACE=", 16) != 0) variables.emplace_back(*v);
    variables.push_back(std::string(serverVariable) + "=1");
    variables.push_back("SWIFT_BACKTRACE=enable=no");
    std::vector<char *> envp;
    for (auto &v : variables) envp.push_back(v.data());
    envp.push_back(nullptr);
    std::string name = helperName;
    char *argv[] = {name.data(), nullptr};
    const pid_t pid = helperEnd < 0 ? -1 : fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 || dup2(helperEnd, socketDescriptor) < 0 ||
            dup2(reader->memory, pictureDescriptor) < 0)
            _exit(127);
        close_range(pictureDescriptor + 1, ~0U, 0);
        setpgid(0, 0);
        struct sigaction defaultAction {};
        defaultAction.sa_handler = SIG_DFL;
        for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGABRT, SIGSEGV}) sigaction(s, &defaultAction, nullptr);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        execve(path.c_str(), argv, envp.data());
        _exit(127);
    }
    const int failed = errno;
    if (helperEnd >= 0) close(helperEnd);
    if (pid < 0) {
        close(ends[0]);
        reader->error = "cannot start zxing-cpp's helper process (" + path + "): " + strerror(failed);
        return false;
    }
    reader->helper = pid;
    reader->socket = ends[0];
    reader->program = path;
    track(reader);
    return true;
}

// Why the helper is gone: it is reaped here.
std::string helperLost(kamera_zxing *reader, const char *doing) {
    const int status = stopHelper(reader);
    std::string why = std::string("zxing-cpp's helper process ") + doing;
    if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
        why = "zxing-cpp stopped with signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    else if (WIFEXITED(status))
        why = "zxing-cpp's helper process exited (status " + std::to_string(WEXITSTATUS(status)) + ")";
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

// Whether the helper just started says hello in this build's protocol.
bool greets(kamera_zxing *reader) {
    uint32_t hello[3] = {};
    const bool ok = awaitReply(reader->socket) && readAll(reader->socket, hello, sizeof hello) && hello[0] == helloMagic &&
                    hello[1] == protocolVersion && hello[2] == sizeof(Request);
    if (!ok) stopHelper(reader);
    reader->greeted = ok;
    return ok;
}

// This executable's path, "" (and the reason in `error`) when it cannot be had.
std::string thisProgram(kamera_zxing *reader) {
    char self[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) {
        reader->error = std::string("cannot find this program (/proc/self/exe) to start zxing-cpp's helper process: ") + strerror(errno);
        return "";
    }
    return std::string(self, size_t(length));
}

// Starts kamera-zxing-helper where it is installed, else (or when that one
// does not start, or is of another build) this executable itself as the
// helper; or waits for the hello of the one `kamera_zxing_prestart` started.
bool startAnyHelper(kamera_zxing *reader) {
    // The installed helper, started early, that did not greet is not started again.
    const bool prestarted = reader->helper > 0 && !reader->greeted;
    if (prestarted && greets(reader)) return true;
    const std::string self = thisProgram(reader);
    if (self.empty()) return false;
    const std::string installed = prestarted ? "" : installedHelper(self);
    if (!installed.empty() && startHelper(reader, installed) && greets(reader)) return true;
    if (!startHelper(reader, self)) return false;
    if (greets(reader)) return true;
    reader->error = "zxing-cpp's helper process (" + self + ") did not start";
    return false;
}

} // namespace

extern "C" int kamera_zxing_helper_main(int, char **) {
    // Reached only when not started by a reader: a reader's helper serves and exits in the constructor above.
    fputs("kamera-zxing-helper: Kamera starts this program to read codes (--detect codes); it is not run by hand\n", stderr);
    return 2;
}

extern "C" kamera_zxing *kamera_zxing_new(void) {
    try {
        return new kamera_zxing();
    } catch (...) {
        return nullptr;
    }
}

extern "C" void kamera_zxing_free(kamera_zxing *reader) {
    stopHelper(reader);
    if (reader->buffer) munmap(reader->buffer, reader->size);
    if (reader->memory >= 0) close(reader->memory);
    delete reader;
}

extern "C" void kamera_zxing_prestart(kamera_zxing *reader) {
    try {
        if (reader->helper > 0) return;
        const std::string self = thisProgram(reader);
        const std::string installed = self.empty() ? "" : installedHelper(self);
        if (!installed.empty() && makeMemory(reader)) startHelper(reader, installed);
        reader->error.clear();
    } catch (...) {
    }
}

extern "C" uint8_t *kamera_zxing_buffer(kamera_zxing *reader, size_t size) {
    try {
        return grow(reader, std::max(size, size_t(1))) ? reader->buffer : nullptr;
    } catch (...) {
        return nullptr;
    }
}

extern "C" int kamera_zxing_read(kamera_zxing *reader, int formats, const uint8_t *luma, int width, int height, int stride,
                                 int pixelStride, int options) {
    try {
        reader->error.clear();
        reader->results.clear();
        const int64_t offset = reader->buffer && luma >= reader->buffer ? luma - reader->buffer : -1;
        if (!fits(offset, width, height, stride, pixelStride, int64_t(reader->size))) {
            reader->error = "a picture of " + std::to_string(width) + "x" + std::to_string(height) + " (" + std::to_string(stride) +
                            " bytes a row) that is not inside the code reader's buffer, or is over " + std::to_string(maxSide) +
                            " pixels a side";
            return -1;
        }
        Request request{formats, width, height, stride, pixelStride, options, offset, 0};
        request.mapped = int64_t(reader->size);
        if ((reader->helper <= 0 || !reader->greeted) && !startAnyHelper(reader)) return -1;
        const int fd = reader->socket;
        if (!writeAll(fd, &request, sizeof request)) {
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

extern "C" const char *kamera_zxing_program(const kamera_zxing *reader) { return reader->program.c_str(); }

extern "C" int kamera_zxing_format(const kamera_zxing *reader, int index) { return reader->results[size_t(index)].format; }

extern "C" const char *kamera_zxing_text(const kamera_zxing *reader, int index, size_t *length) {
    const std::string &text = reader->results[size_t(index)].text;
    *length = text.size();
    return text.data();
}

extern "C" void kamera_zxing_corners(const kamera_zxing *reader, int index, int corners[8]) {
    std::copy(reader->results[size_t(index)].corners, reader->results[size_t(index)].corners + 8, corners);
}
