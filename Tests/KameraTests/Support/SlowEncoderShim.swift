import Foundation

/// A library the tests preload into `kamera` (LD_PRELOAD) so that its video
/// encoder is slower than any camera however fast the machine is: each
/// picture handed to FFmpeg's `avcodec_send_frame` waits 500 ms first. The
/// delay is the test's own; Kamera's code has no hook for it.
enum SlowEncoderShim {
    static let source = """
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

    /// Compiles the library into `folder` as `slow-encoder.so` with the
    /// toolchain's clang (every Swift installation has one).
    static func build(in folder: URL) throws {
        let source = folder.appendingPathComponent("slow-encoder.c")
        try Self.source.write(to: source, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["clang", "-shared", "-fPIC", "-O1", "-o", folder.appendingPathComponent("slow-encoder.so").path, source.path, "-ldl"]
        let result = try KameraProcess.collect(process)
        guard result.status == 0 else { throw SlowEncoderShimError(message: "clang could not build the slow encoder shim: \(result.stderr)") }
    }
}

struct SlowEncoderShimError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
