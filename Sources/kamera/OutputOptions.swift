import ArgumentParser
import CommandLineSupport
import Output
import Analysis
import Analyzers
import Detection
import Pipeline
import Pixels

/// How `-o` outputs are written: the format of a stream, Y4M's chroma, PNG's compression.
struct OutputOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "What - (standard output), a FIFO or a device takes: png (images one after another) or y4m (YUV4MPEG2, for encoders: -o - --stream y4m | ffmpeg -i - out.mp4).", completion: .list(["png", "y4m"]))
    var stream = "png"

    @Option(parsing: .unconditional, help: "Chroma of Y4M output: 420 (half width and height, what encoders take), 422 or 444.", completion: .list(["420", "422", "444"]))
    var y4mChroma = "420"

    /// ffmpeg's -y (replace outputs without asking), taken as the no-op it is here: Kamera always replaces them.
    @Flag(name: .customShort("y"), help: .hidden)
    var replaceWithoutAsking = false

    @Option(parsing: .unconditional, help: "PNG encoding: fast (no row filter, deflate level 1), default (no row filter, level 4) or small (the smaller of every row filter at level 9 and none at level 12); see the README for sizes and times.", completion: .list(["fast", "default", "small"]))
    var pngCompression = "default"

    /// The `--png-compression` choice.
    func compression() throws -> PNGCompression {
        guard let value = PNGCompression(rawValue: pngCompression) else {
            throw UsageError("--png-compression \(excerpt(pngCompression)) is not valid; use fast, default or small")
        }
        return value
    }

    @Option(parsing: .unconditional, help: "What a virtual camera (-o /dev/videoN, v4l2loopback) gives its readers: \(RGBAToCameraFormat.names) (yuyv, the default, is what webcams give).",
            completion: .list(RGBAToCameraFormat.layouts.map { $0.names[0] }))
    var v4l2Format = "yuyv"

    /// The `--v4l2-format` choice.
    func virtualCameraFormat() throws -> PixelFormat {
        guard let format = RGBAToCameraFormat.format(named: v4l2Format) else {
            throw UsageError("--v4l2-format \(excerpt(v4l2Format)) is not valid; use \(RGBAToCameraFormat.names)")
        }
        return format
    }

    func chroma() throws -> RGBAToYUV.Chroma {
        guard let value = RGBAToYUV.Chroma(rawValue: y4mChroma) else { throw UsageError("--y4m-chroma \(excerpt(y4mChroma)) is not valid; use 420, 422 or 444") }
        return value
    }

    @Option(parsing: .unconditional, help: "Video codec of .mp4/.mov/.mkv/.webm outputs: h264, hevc, vp9, av1, mjpeg or ffv1 (lossless, .mkv/.mov), or an encoder such as h264_nvenc; default h264 (vp9 in .webm). help lists what this machine has.", completion: .list(VideoCodec.allCases.map(\.rawValue)))
    var codec: String?

    @Option(parsing: .unconditional, help: "Video quality, lower is better: x264/x265 0-51 (default 23), VP9/AV1 0-63 (default 32).",
            transform: ArgumentValue.integer("a whole number, such as 23"))
    var crf: Int?

    @Option(parsing: .unconditional, help: "Video bits a second instead of constant quality: 4M, 800k.", transform: ArgumentValue.bitrate())
    var bitrate: Int?

    @Option(parsing: .unconditional, help: "Encoder speed preset: x264/x265 ultrafast ... veryslow (default veryfast); VP9/AV1 cpu-used 0-8.", completion: .list(VideoSettings.x26xPresets))
    var preset: String?

    @Option(parsing: .unconditional, help: "Video key frames every N frames, or every N seconds with s: 30, 2s (default 1s).",
            transform: ArgumentValue.keyFrameInterval())
    var gop: KeyFrameInterval?

    @Flag(help: "MP4/MOV: one plain file with its index first, put in place at the end, instead of fragments that play even after a crash.")
    var faststart = false

    @Flag(help: "Write no metadata into stills and recordings: no dates, camera, software, source or filters (as ImageMagick's -strip); the same bytes for the same pictures.")
    var strip = false

    @Option(parsing: .unconditional, help: "When the video encoder falls behind: late (drop the frame; the default on cameras) or never (wait; the default on files, the test pattern and exports).", completion: .list(["late", "never"]))
    var drop: String?

    @Option(parsing: .unconditional, help: "What a 4:2:0 video encoder is fed: auto (4:2:0 made straight from a YUV frame, the filter applied on the way, when the CPU's conversion is the whole picture; otherwise the RGBA picture through swscale) or rgba (always the RGBA picture, to compare).", completion: .list(["auto", "rgba"]))
    var encoderInput = "auto"

    @Option(parsing: .unconditional, help: "Record sound from this ALSA capture device into the video outputs: default, hw:1,0, plughw:CARD=NAME (kamera devices --audio lists them). AAC in .mp4/.mov, Opus in .mkv/.webm.", completion: .list(["default"]))
    var audio: String?

    @Option(parsing: .unconditional, help: "Sound codec: aac, opus or flac (.mkv).", completion: .list(["aac", "opus", "flac"]))
    var audioCodec: String?

    @Option(parsing: .unconditional, help: "Sound sample rate in Hz.", transform: ArgumentValue.integer("a rate in Hz, such as 48000"))
    var audioRate = 48000

    @Option(parsing: .unconditional, help: "Sound channels: 1 (mono) or 2 (stereo).", transform: ArgumentValue.integer("1 or 2"))
    var audioChannels = 2

    @Option(parsing: .unconditional, help: "JPEG quality of .jpg outputs and snapshots, 1-100.", transform: ArgumentValue.integer("a whole number from 1 to 100"))
    var quality = 92

    @Option(parsing: .unconditional, help: "JPEG chroma: 420 (half width and height) or 444 (full).", completion: .list(["420", "444"]))
    var jpegSubsampling = "420"

    @Option(parsing: .unconditional, help: ArgumentHelp("Serve the live picture over HTTP on this port (PORT, or HOST:PORT to listen beyond 127.0.0.1, with --auth): MJPEG at /stream and /?action=stream, a JPEG at /snapshot, /state, a page at /. 0: any free port.", valueName: "[HOST:]PORT"), completion: .list(["8080"]))
    var serve: String?

    @Option(parsing: .unconditional, help: "Serve at most this many frames a second (default: every frame rendered while someone watches).")
    var serveFps: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("HTTP Basic credentials every client of --serve must give (needed beyond 127.0.0.1).", valueName: "USER:PASSWORD"))
    var auth: String?

    /// `--codec` and the other video options.
    func videoSettings() throws -> VideoSettings {
        var video = VideoSettings()
        if codec == "help" || codec == "list" {
            print(CodecListing.text)
            throw ExitCode.success
        }
        video.codec = codec
        video.crf = crf
        video.bitrate = bitrate
        video.preset = preset
        video.gop = gop
        video.faststart = faststart
        video.audioCodec = audioCodec
        guard let input = VideoSettings.EncoderInput(rawValue: encoderInput) else {
            throw UsageError("--encoder-input \(excerpt(encoderInput)) is not valid; use auto or rgba")
        }
        video.encoderInput = input
        if let drop {
            guard let policy = VideoSettings.DropPolicy(rawValue: drop) else { throw UsageError("--drop \(excerpt(drop)) is not valid; use late or never") }
            video.drop = policy
        }
        if let preset, preset.isEmpty || preset.count > 32 || !preset.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) {
            throw UsageError("--preset \(excerpt(preset)) is not a preset name; x264 takes ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow")
        }
        return video
    }

    /// `--quality` and `--jpeg-subsampling`.
    func jpegSettings() throws -> JPEGSettings {
        var jpeg = JPEGSettings()
        jpeg.quality = quality
        guard let sampling = JPEGSettings.Subsampling(rawValue: jpegSubsampling) else {
            throw UsageError("--jpeg-subsampling \(excerpt(jpegSubsampling)) is not valid; use 420 or 444")
        }
        jpeg.subsampling = sampling
        do { try jpeg.check() } catch { throw UsageError("\(error)") }
        return jpeg
    }

    @Option(name: .customLong("analyze"), parsing: .unconditionalSingleValue,
            help: "Analyse each frame beside the loop, repeatable or comma-separated: \(AnalyzerRegistry.kinds.filter { !$0.takesValues }.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")).", completion: .list(AnalyzerRegistry.kinds.filter { !$0.takesValues }.map(\.name)))
    var analyzers: [String] = []

    @Option(parsing: .unconditional, help: "Analyse at most this many frames a second (default: as many as the analysers keep up with on live runs, every frame on files).",
            transform: ArgumentValue.real("a number of frames a second above 0"))
    var analyzeRate: Double?

    @Option(parsing: .unconditional, help: "Where the analysers' results go, one JSON line per analysed frame: a file, or - (standard output; the default with --analyze, none with --detect alone).", completion: Completions.anyFile)
    var metadata: String?

    @Option(parsing: .unconditionalSingleValue,
            help: "Detect what is in the picture, beside the loop: faces (OpenCV's Haar cascade; faces=lbp: its LBP one, 2.7 times as fast, blind to faces under about 50 pixels), codes (every code zxing-cpp reads) or codes=qr,aztec,... (\(CodeFormat.names)), motion (as --analyze motion); repeatable or comma-separated. New codes are printed on standard output (TYPE VALUE), each once while it stays in view.", completion: .list(["faces", "faces=lbp", "codes", "motion"]))
    var detect: [String] = []

    @Option(parsing: .unconditional, help: "Detect in at most this many frames a second (the same rate as --analyze-rate).",
            transform: ArgumentValue.real("a number of frames a second above 0"))
    var detectRate: Double?

    @Option(parsing: .unconditional, help: "Draw what --detect finds over the picture: boxes (face boxes, code outlines), labels (and each code's value) or none. Default: labels for preview, none otherwise.", completion: .list(["boxes", "labels", "none"]))
    var overlay: String?

    @Flag(help: "With --detect codes: print the first code's value alone on standard output and exit 0 (exit 1 when the input ends without one).")
    var once = false

    /// What a stream takes (`--stream`).
    func streamFormat() throws -> OutputRequest.StreamFormat {
        guard let format = OutputRequest.StreamFormat(rawValue: stream) else {
            throw UsageError("--stream \(excerpt(stream)) is not valid; use png or y4m")
        }
        return format
    }

    /// How the outputs are written, from these options.
    func settings(display: DisplayRequest) throws -> OutputSettings {
        var settings = OutputSettings()
        settings.stream = try streamFormat()
        settings.pngCompression = try compression()
        settings.y4mChroma = try chroma()
        settings.v4l2Format = try virtualCameraFormat()
        settings.video = try videoSettings()
        settings.jpeg = try jpegSettings()
        settings.sound.device = audio
        settings.sound.rate = audioRate
        settings.sound.channels = audioChannels
        settings.display = display
        settings.strip = strip
        settings.serve.fps = serveFps
        if let auth {
            do { settings.serve.credentials = try ServeSettings.Credentials(parsing: auth) } catch { throw UsageError("\(error)") }
        }
        try settings.serve.check()
        return settings
    }

    /// Each `-o`, told by its form.
    func requests(_ outputs: [String]) throws -> [OutputRequest] {
        let format = try streamFormat()
        if serve == nil, let option = [("--serve-fps", serveFps != nil), ("--auth", auth != nil)].first(where: \.1)?.0 {
            throw UsageError("\(option) is for the server; add --serve 8080")
        }
        var outputs = outputs
        if let serve {
            guard !serve.contains("://") || serve.lowercased().hasPrefix("http://") else {
                throw UsageError("--serve \(excerpt(serve)) is not an address; give a port (8080) or HOST:PORT")
            }
            do { _ = try ServeAddress(parsing: serve) } catch { throw UsageError("\(error)") }
            outputs.append(serve.lowercased().hasPrefix("http://") ? serve : "http://" + serve)
        }
        let requests = try outputs.map { text in
            do {
                return try OutputRequest(parsing: text, stream: format)
            } catch {
                throw UsageError("-o \(error)")
            }
        }
        if requests.filter({ $0.kind is ScreenSink.Type }).count > 1 { throw UsageError("-o kms is given twice; there is one display") }
        let videoOptions: [(String, Bool)] = [("--codec", codec != nil && codec != "help" && codec != "list"), ("--crf", crf != nil), ("--bitrate", bitrate != nil), ("--preset", preset != nil),
                                              ("--gop", gop != nil), ("--faststart", faststart), ("--drop", drop != nil), ("--encoder-input", encoderInput != "auto"),
                                              ("--audio", audio != nil), ("--audio-codec", audioCodec != nil)]
        let encodesVideo = requests.contains { $0.isWritten(by: VideoRecording.self) || $0.isWritten(by: PublishSink.self) }
        if !encodesVideo, let (option, _) = videoOptions.first(where: \.1) {
            throw UsageError("\(option) is for video outputs; add -o clip.mp4 (or .mkv, .mov, .webm)")
        }

        return requests
    }
}
