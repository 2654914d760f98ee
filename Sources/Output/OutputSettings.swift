import Pixels

/// How the outputs of a run are written, as the command asked: each kind's
/// encoding, what a stream carries, where the display is, the sound recorded.
/// A sink kind with settings of its own adds them here.
public struct OutputSettings {
    /// What `-`, a FIFO or a device takes when its name does not say.
    public var stream = OutputRequest.StreamFormat.png
    /// Picture outputs keep the latest frame, replaced every this many
    /// seconds (a live preview's picture); nil: every frame is written.
    public var every: Double?
    public var pngCompression = PNGCompression.default
    public var y4mChroma = RGBAToYUV.Chroma.c420
    /// How `.jpg` outputs are encoded.
    public var jpeg = JPEGSettings()
    /// How `.mp4`, `.mov`, `.mkv` and `.webm` outputs are encoded.
    public var video = VideoSettings()
    /// Where `kms` shows the picture.
    public var display = DisplayRequest()
    /// Sound recorded into every video output.
    public var sound = SoundRequest()
    /// `--strip`: stills and recordings carry no metadata (no dates, camera,
    /// software, source or filters), as ImageMagick's `-strip`.
    public var strip = false
    /// How `--serve` serves the live picture.
    public var serve = ServeSettings()
    /// The layout a virtual camera (`-o /dev/videoN`) writes (`--v4l2-format`).
    public var v4l2Format = PixelFormat.yuyv

    public init() {}
}

/// An ALSA capture device recorded into the video outputs.
public struct SoundRequest {
    /// The device (`default`, `hw:1,0`); nil for no sound.
    public var device: String?
    public var rate = 48000
    public var channels = 2

    public init() {}
}
