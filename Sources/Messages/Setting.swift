/// A setting of a run, as the library names it in a message: `"\(Setting.crf)
/// 70 is out of range"`. The library says it in its own words ("the video
/// quality 70 is out of range"); a front end installs its own names for the
/// settings (`Setting.names`), and the same message then names its options
/// ("--crf 70 is out of range"). Library messages name settings only this way.
public struct Setting: Hashable, Sendable, CustomStringConvertible {
    /// What the setting is, for the front end's table.
    public let key: String
    /// The library's words for it.
    public let words: String

    public init(_ key: String, _ words: String) {
        self.key = key
        self.words = words
    }

    /// How messages name settings: the library's words unless a front end
    /// installed its own names. Set once at start, before any thread.
    nonisolated(unsafe) public static var names: (Setting) -> String = { $0.words }

    public var description: String { Setting.names(self) }
}

extension Setting {
    public static let output = Setting("output", "an output")
    public static let input = Setting("input", "the input file")
    public static let saveInput = Setting("save-input", "the raw input copy")
    public static let allowDamaged = Setting("allow-damaged", "accepting damaged input")
    public static let camera = Setting("camera", "the camera")
    public static let format = Setting("format", "the input format")
    public static let inputSize = Setting("input-size", "the input size")
    public static let fps = Setting("fps", "the frame rate")
    public static let size = Setting("size", "the output size")
    public static let decoder = Setting("decoder", "the decoder")
    public static let yuvConversion = Setting("yuv-conversion", "the YUV conversion")
    public static let upload = Setting("upload", "the upload")
    public static let blackLevel = Setting("black-level", "the black level")
    public static let warmup = Setting("warmup", "the warm-up frames")
    public static let stream = Setting("stream", "the stream format")
    public static let quality = Setting("quality", "the JPEG quality")
    public static let codec = Setting("codec", "the video codec")
    public static let crf = Setting("crf", "the video quality")
    public static let preset = Setting("preset", "the encoder preset")
    public static let bitrate = Setting("bitrate", "the video bitrate")
    public static let gop = Setting("gop", "the key-frame interval")
    public static let faststart = Setting("faststart", "the index-first layout")
    public static let audio = Setting("audio", "the sound device")
    public static let audioRate = Setting("audio-rate", "the sound rate")
    public static let audioChannels = Setting("audio-channels", "the sound channels")
    public static let audioCodec = Setting("audio-codec", "the sound codec")
    public static let detect = Setting("detect", "detection")
    public static let overlay = Setting("overlay", "the overlay")
    public static let once = Setting("once", "the first code alone")
    public static let uniform = Setting("uniform", "uniform")
    public static let channel = Setting("channel", "channel")
    public static let buffer = Setting("buffer", "buffer")
    public static let gles = Setting("gles", "the OpenGL ES version")
    public static let gpu = Setting("gpu", "the EGL platform")
    public static let frameTimeout = Setting("frame-timeout", "the frame timeout")
    public static let expect = Setting("expect", "golden image")
    public static let card = Setting("card", "the display card")
    public static let connector = Setting("connector", "connector")
    public static let mode = Setting("mode", "display mode")
    public static let legacy = Setting("legacy", "legacy mode setting")
    public static let controlAssignment = Setting("set", "control assignment")
    public static let cameraFormats = Setting("camera-formats", "the camera's list of formats")
    public static let soundDevices = Setting("sound-devices", "the list of sound devices")
    public static let serve = Setting("serve", "the server address")
    public static let serveFPS = Setting("serve-fps", "the served frame rate")
    public static let auth = Setting("auth", "the server's credentials")
    public static let v4l2Format = Setting("v4l2-format", "the virtual camera's format")
    public static let persistent = Setting("persistent", "keeping the run through a lost camera")
    public static let fallbackImage = Setting("fallback-image", "the no-signal still")

    /// Every setting a library message may name; a front end names each.
    public static let all: [Setting] = [
        output, input, camera, format, inputSize, fps, size, decoder, yuvConversion, upload, blackLevel, warmup, stream, quality,
        codec, crf, bitrate, gop, faststart, audio, audioRate, audioChannels, audioCodec, detect, overlay, once, uniform, channel,
        buffer, gles, gpu, frameTimeout, expect, card, connector, mode, legacy, controlAssignment, cameraFormats, soundDevices,
        serve, serveFPS, auth, v4l2Format, persistent, fallbackImage,
    ]
}
