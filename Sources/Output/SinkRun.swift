import Pixels

/// What a sink knows of its run when it is made, before any frame.
public struct SinkRun {
    public var settings: OutputSettings
    /// Frames the run renders; 1 for an open-ended run.
    public var frames = 1
    /// The number in sequence names of the run's first frame.
    public var firstNumber = 0
    /// Frames a second, as far as known before the source opens.
    public var rate = 30.0
    /// How the source's Y'CbCr is encoded, for outputs that write Y'CbCr.
    public var colorSpace = YUVColorSpace.bt601Limited
    /// True when frames are stamped by a camera's clock; false when frame by frame.
    public var cameraStamps = false
    /// True for a live run (a camera, or a paced preview), which sound can accompany.
    public var isLive = false
    /// The sound device, opened once for every sink that records it.
    public let sound: SharedSound

    public init(settings: OutputSettings) {
        self.settings = settings
        sound = SharedSound(settings.sound)
    }
}

/// What a sink is told when the run is built, on the render thread, before the first frame.
public struct SinkStart {
    /// The frame rate the renderer settled on.
    public var rate: Double
    /// The facts a still carries (EXIF, PNG text).
    public var stills: () -> StillMetadata
    /// Hears each file a sink puts in place; nil when nobody listens.
    public var onWrite: ((String) -> Void)?
    /// Hears what a sink has to say (a summary at the end).
    public var onNote: (String) -> Void

    public init(rate: Double, stills: @escaping () -> StillMetadata = { StillMetadata() }, onWrite: ((String) -> Void)? = nil, onNote: @escaping (String) -> Void = { _ in }) {
        self.rate = rate
        self.stills = stills
        self.onWrite = onWrite
        self.onNote = onNote
    }
}
