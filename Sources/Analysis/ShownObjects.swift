/// The objects drawn over the frame in hand (`DetectionOverlay`): set by the
/// frame loop before each frame is drawn, from the analysis (offline, that
/// frame's own; live, the newest found). Used on the render thread only.
public final class ShownObjects {
    public var objects: [DetectedObject] = []

    public init() {}
}
