import DRM
import Filters
import GPU
import Output
import Pixels

/// A run as a command describes it: where frames come from, the GPU, how
/// they are drawn and where they go. `RunBuilder` makes it into a frame loop.
public struct RunDescription {
    public var source = SourceOptions()
    public var settings = RenderSettings()
    public var platform = GPUPlatform.auto
    public var gles = GLESVersion.auto
    /// Every `-o`, in order.
    public var outputs: [OutputRequest] = []
    /// Where `kms` shows the picture.
    public var display = DisplayRequest()
    public var pngCompression = PNGCompression.default
    /// PNG outputs keep the latest frame, replaced every this many seconds (a
    /// live preview's picture); nil: every frame is written (a file per frame,
    /// or a stream).
    public var pngEvery: Double?
    public var y4mChroma = RGBAToYUV.Chroma.c420
    /// How `.mp4`, `.mov`, `.mkv` and `.webm` outputs are encoded.
    public var video = VideoSettings()
    /// `--audio`: an ALSA capture device recorded into every video output.
    public var audio: String?
    public var audioRate = 48000
    public var audioChannels = 2
    /// How `.jpg` outputs are encoded.
    public var jpeg = JPEGSettings()
    /// Stills (JPEG, PNG files) carry metadata (EXIF, PNG text) naming this software.
    public var software = "Kamera"
    /// Frames the run renders, nil for open-ended runs (a live preview).
    public var frames: Int?
    /// The number of the first frame in sequence names and goldens, and the
    /// input frame it shows (an export from frame A on).
    public var firstNumber = 0
    /// Frames taken from the source and dropped before the first one rendered:
    /// a camera's auto exposure and white balance settle meanwhile (`snap --warmup`).
    /// nil: one second's worth at a camera's rate (none for other sources).
    public var warmup: Int? = 0
    /// Files and the test pattern at their rate rather than as fast as they render.
    public var paced = false
    /// The zoom slider, 0...1.
    public var zoom: Double?
    /// Also write every input frame, raw (`--save-input`).
    public var saveInput: String?
    /// Each frame checked against golden images (`--expect`).
    public var expectation: Expectation?
    /// Analysers by name (`AnalyzerRegistry`), run beside the loop.
    public var analyzers: [String] = []
    /// At most this many analysed frames a second of frame time.
    public var analyzeRate: Double?
    /// Where the analysers' records go, one JSON line each: a file or `-`; nil
    /// with analysers: standard output; with detection alone: nowhere.
    public var metadata: String?
    /// `--detect`: faces and codes found beside the loop.
    public var detection: DetectionRequest?
    /// `--overlay`: what detection found drawn over the picture; nil: labels on
    /// a live preview (`paced` or a camera with a display), none otherwise.
    public var overlay: DetectionOverlay.Mode?
    /// `--once`: the first code's value printed, then the run ends.
    public var once = false

    public struct Expectation {
        public var golden: OutputPattern
        public var tolerance: Int

        public init(golden: OutputPattern, tolerance: Int) {
            self.golden = golden
            self.tolerance = tolerance
        }
    }

    public init() {}

    /// True when an output is the console's display.
    public var showsOnDisplay: Bool { outputs.contains(.display) }
}

/// Where `-o kms` shows the picture: a card, a connector, a mode, or the first that works.
public struct DisplayRequest: Equatable {
    /// `/dev/dri/cardN`; nil for the first card with a connected display.
    public var card: String?
    /// A connector's name or id; nil for the first connected.
    public var connector: String?
    /// `WxH` or `WxH@Hz`; nil for the display's preferred mode.
    public var mode: String?
    /// Legacy mode setting even where atomic is offered.
    public var legacy = false

    public init() {}

    /// Opens the card and chooses connector, mode and CRTC; nothing on screen changes yet.
    public func choose() throws -> (card: DisplayCard, choice: DisplayChoice) {
        if card == "" { throw PipelineError("the display card is empty; give a card such as /dev/dri/card0 (see `kamera displays`)") }
        let display = try card.map { try DisplayCard(path: $0, legacy: legacy) } ?? DisplayCard.firstConnected(legacy: legacy)
        let choice = try display.choose(connector: connector, mode: mode)
        try display.becomeMaster()
        return (display, choice)
    }
}
