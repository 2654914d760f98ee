import Render
import Analysis
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
    /// How they are written.
    public var output = OutputSettings()
    /// Stills (JPEG, PNG files) carry metadata (EXIF, PNG text) naming this software.
    public var software = "Kamera"
    /// The sources after the first, composed with it (`--layout`); empty for one source.
    public var composed: [Composition.Source] = []
    public var layout = CompositionLayout.side
    /// The composed picture's size (`--size` with several sources); nil: the layout's.
    public var compositionSize: (width: Int, height: Int)?
    /// Keep a live camera's run through its loss with a no-signal picture
    /// (`NoSignal`); nil: only when an output is a virtual camera.
    public var persistent: Bool?
    /// The still the no-signal picture is, instead of the last picture dimmed.
    public var fallbackImage: String?
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
    /// Recordings stamped by each frame's own timestamp (a camera's clock,
    /// the first at 0) rather than frame by frame at the rate; nil: for cameras.
    public var stampsFromSource: Bool?
    /// The zoom slider, 0...1.
    public var zoom: Double?
    /// Also write every input frame, raw (`--save-input`).
    public var saveInput: String?
    /// Each frame checked against golden images (`--expect`).
    public var expectation: Expectation?
    /// The analysers run beside the loop, in the order of their results.
    public var analyzers: [AnalyzerRequest] = []
    /// At most this many analysed frames a second of frame time.
    public var analyzeRate: Double?
    /// Where the analysers' records go, one JSON line each: a file or `-`;
    /// nil: standard output when an analyser of the frame's statistics runs,
    /// nowhere when the analysers only find things (their codes are printed).
    public var metadata: String?
    /// `--overlay`: what the analysers found drawn over the picture; nil: labels on
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

    /// What the analysers find in the picture, together.
    public var finds: Findings { analyzers.reduce([]) { $0.union($1.finds) } }

    /// True when an output is the console's display.
    public var showsOnDisplay: Bool { outputs.contains { $0.kind is ScreenSink.Type } }
}
