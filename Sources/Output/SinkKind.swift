/// A kind of output that `-o` can name. Each sink's file declares its kind
/// (the forms it takes and how it is made) and `SinkRegistry.kinds` lists it:
/// a new sink is its file(s) and one line there.
public protocol SinkKind {
    /// The forms of `-o` this kind takes.
    static var forms: OutputForms { get }
    /// Makes the sink for `request`, checking what can be checked before
    /// any frame is rendered; nothing is written yet.
    static func make(_ request: OutputRequest, run: SinkRun) throws -> FrameSink
}

/// The forms of `-o` a sink kind takes, told apart as ffmpeg does: by the
/// whole name (`kms`), a URL's scheme (`rtmp://`), the file's extension, or,
/// for a stream (`-`, a FIFO, a device), the stream format asked for.
public struct OutputForms {
    /// What the kind is called in messages: `png`, `video`.
    public var name: String
    /// Names taken whole: `kms`.
    public var names: [String] = []
    /// URL schemes, without `://`.
    public var schemes: [String] = []
    /// File extensions, lower case, without the dot.
    public var extensions: [String] = []
    /// The stream format (`OutputRequest.StreamFormat`) under which this
    /// kind writes `-`, FIFOs and devices.
    public var stream: OutputRequest.StreamFormat?
    /// True when it writes V4L2 video devices (`/dev/videoN`).
    public var videoDevices = false
    /// True when a numbered sequence (`%d` in the name) is one of its forms.
    public var sequences = true
    /// The forms, for messages: `NAME.png, a sequence NAME-%03d.png`.
    public var help: String

    public init(name: String, names: [String] = [], schemes: [String] = [], extensions: [String] = [],
                stream: OutputRequest.StreamFormat? = nil, videoDevices: Bool = false, sequences: Bool = true, help: String) {
        self.name = name
        self.names = names
        self.schemes = schemes
        self.extensions = extensions
        self.stream = stream
        self.videoDevices = videoDevices
        self.sequences = sequences
        self.help = help
    }
}
