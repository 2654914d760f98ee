import ArgumentParser
import Foundation
import Logging
import Pipeline

/// Options shared by the commands that render: the GPU and logging.
struct GPUOptions: ParsableArguments {
    @Option(help: "EGL platform: \(GPUPlatform.validNames).")
    var gpu = "auto"

    @Option(help: "OpenGL ES version: auto (3 when offered), 2 or 3.")
    var gles = "auto"

    @Flag(name: .shortAndLong, help: "Log the EGL platform, GL vendor, renderer and version, and progress.")
    var verbose = false

    @Flag(name: .shortAndLong, help: "No progress or status lines on stderr (errors still show).")
    var quiet = false

    func platform() throws -> GPUPlatform {
        guard let p = GPUPlatform(argument: gpu) else { throw UsageError("--gpu \(gpu) is not valid; use \(GPUPlatform.validNames)") }
        return p
    }

    func version() throws -> GLESVersion {
        guard let v = GLESVersion(rawValue: gles) else { throw UsageError("--gles \(gles) is not valid; use auto, 2 or 3") }
        return v
    }

    func makeLogger() -> Logger {
        LoggingSystem.bootstrap { _ in OneLineLogHandler() }
        var logger = Logger(label: "kamera")
        logger.logLevel = verbose ? .info : .warning
        return logger
    }
}

/// A mistake in the command line, reported as one line.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
