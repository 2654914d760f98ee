import ArgumentParser
import BuildInfo
import Foundation
import GPU
import Logging
import Pipeline

/// Options shared by the commands that render: the GPU and logging.
public struct GPUOptions: ParsableArguments {
    public init() {}

    @Option(help: "EGL platform: \(GPUPlatform.validNames).")
    public var gpu = "auto"

    @Option(help: "OpenGL ES version: auto (3 when offered), 2 or 3.")
    public var gles = "auto"

    @Flag(name: .shortAndLong, help: "Log the EGL platform, GL vendor, renderer and version, and progress.")
    public var verbose = false

    @Flag(name: .shortAndLong, help: "No progress, status or summary lines on stderr (errors and warnings still show).")
    public var quiet = false

    @Option(parsing: .unconditional, help: "Seconds a frame or a shader compile may take before the run ends with an error (a shader that never finishes); after Ctrl-C or SIGTERM the GPU work in hand gets 2 s.",
            transform: ArgumentValue.seconds())
    public var frameTimeout = 60.0

    public func platform() throws -> GPUPlatform {
        guard let p = GPUPlatform(argument: gpu) else { throw UsageError("--gpu \(gpu) is not valid; use \(GPUPlatform.validNames)") }
        return p
    }

    public func version() throws -> GLESVersion {
        guard let v = GLESVersion(rawValue: gles) else { throw UsageError("--gles \(gles) is not valid; use auto, 2 or 3") }
        return v
    }

    public func makeLogger() -> Logger {
        LoggingSystem.bootstrap { _ in OneLineLogHandler() }
        var logger = Logger(label: "kamera")
        // Notices (a choice the user should know of, such as --fps max finding
        // nothing faster) show unless --quiet; progress only with -v.
        logger.logLevel = verbose ? .info : quiet ? .warning : .notice
        if !verbose {
            // Mesa's loader and libEGL print their own warnings (a driver module not found
            // while probing, "MESA-LOADER: failed to open ...") that say nothing to act on;
            // with -v they show. Set before any EGL call; a user's own setting stays.
            setenv("LIBGL_DEBUG", "quiet", 0)
            setenv("EGL_LOG_LEVEL", "fatal", 0)
        }
        logger.info("kamera \(kameraVersion)")
        return logger
    }
}
