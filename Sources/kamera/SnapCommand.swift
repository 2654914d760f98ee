import ArgumentParser
import Capture
import CommandLineSupport
import Foundation
import Output
import Pipeline

/// `kamera snap`: a still (or a burst) from the camera at its largest size,
/// after the auto exposure has settled, filtered and cropped as the preview is.
struct SnapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snap",
        abstract: "Take a still from the camera at its largest size, after --warmup frames, filtered and cropped as the preview is; JPEG or PNG with metadata.",
        discussion: """
        With no --camera and no --input it takes the first camera (--camera auto).
        Examples:
          kamera snap -o photo.jpg --camera /dev/video0
          kamera snap -o photo.jpg --camera /dev/video0 --filter sepia --quality 95 --jpeg-subsampling 444
          kamera snap --frames 5 -o shot-%02d.jpg --camera /dev/video0 --warmup 10
          kamera snap -o photo.png --input \(ExamplesFolder.path)/Media/photo.jpg --crop none --filter instant
        """)

    @Option(name: .shortAndLong, parsing: .unconditionalSingleValue,
            help: "Output, repeatable: NAME.jpg (EXIF), NAME.png (eXIf and tEXt), NAME-%02d.jpg with --frames.")
    var output: [String] = []

    @Option(parsing: .unconditional, help: "Stills to take, one after another (a burst).", transform: ArgumentValue.frameCount())
    var frames = 1

    @Option(parsing: .unconditional, help: "Camera frames dropped first while auto exposure and white balance settle (default: those of the first second, by the driver's timestamps; none for files).",
            transform: ArgumentValue.integer("a whole number of frames from 0 to 1000"))
    var warmup: Int?

    @OptionGroup var pipeline: PipelineOptions

    @OptionGroup var outputOptions: OutputOptions

    @OptionGroup var display: DisplayOptions

    @OptionGroup var gpuOptions: GPUOptions
    @OptionGroup var configOption: ConfigOption

    func run() throws {
        guard !output.isEmpty else { throw UsageError("snap needs -o: a still such as -o photo.jpg, or -o shot-%02d.jpg with --frames") }
        if let warmup, !(0...1000).contains(warmup) { throw UsageError("--warmup \(warmup) is out of range; use 0 to 1000 frames") }
        var pipeline = self.pipeline
        if pipeline.camera == nil && pipeline.input == nil { pipeline.camera = "auto" }
        var description = try describeRun(pipeline, outputs: output, outputOptions, display, gpuOptions)
        for request in description.outputs where !request.isWritten(by: JPEGSink.self) && !request.isWritten(by: PNGSink.self) {
            throw UsageError("-o \(request.name): snap writes stills; use NAME.jpg or NAME.png")
        }
        if let camera = description.source.camera {
            let path: String
            do {
                path = camera == "auto" ? try SourceOptions.firstCamera() : camera
            } catch {
                throw UsageError("no camera found (no /dev/videoN can capture video); give --camera DEVICE, or --input FILE to snap a picture file")
            }
            description.source.camera = path
            if description.source.inputSize == nil {
                let device = try CameraDevice(path: path)
                description.source.inputSize = device.largestSize()
            }
            description.warmup = warmup
        } else {
            description.warmup = warmup ?? 0
        }
        description.frames = frames
        try RenderCommand.execute(try RunBuilder(description), frames: frames, gpuOptions: gpuOptions)
    }
}
