import Foundation

/// Small libraries the tests preload into `kamera` (LD_PRELOAD) to make a
/// fault happen at a chosen moment; Kamera's code has no hook for them.
enum PreloadShim {
    /// Each picture handed to FFmpeg's `avcodec_send_frame` waits 500 ms
    /// first: a video encoder slower than any camera however fast the machine is.
    static let slowEncoder = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <unistd.h>
        struct AVCodecContext;
        struct AVFrame;
        int avcodec_send_frame(struct AVCodecContext *context, const struct AVFrame *frame) {
            static int (*next)(struct AVCodecContext *, const struct AVFrame *);
            if (!next) next = (int (*)(struct AVCodecContext *, const struct AVFrame *))dlsym(RTLD_NEXT, "avcodec_send_frame");
            if (frame) usleep(500000);
            return next(context, frame);
        }
        """

    /// SIGINT raised from a library's constructor: a Ctrl-C that comes while
    /// the program's libraries start, before its `main`.
    static let interruptBeforeMain = """
        #include <signal.h>
        __attribute__((constructor)) static void interruptBeforeMain(void) { raise(SIGINT); }
        """

    /// Compiles `source` into `folder` as `name` (a .so) with the toolchain's
    /// clang (every Swift installation has one); returns its path.
    @discardableResult
    static func build(_ source: String, named name: String, in folder: URL) throws -> String {
        let file = folder.appendingPathComponent(name + ".c")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let library = folder.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["clang", "-shared", "-fPIC", "-O1", "-o", library, file.path, "-ldl"]
        let result = try KameraProcess.collect(process)
        guard result.status == 0 else { throw PreloadShimError(message: "clang could not build \(name): \(result.stderr)") }
        return library
    }
}

struct PreloadShimError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
