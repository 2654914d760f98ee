/// What a client of the server asks the run to change, taken between frames
/// on the render thread (`ServeSink.takeRequest`).
public enum ControlRequest: Equatable, Sendable {
    /// Show the picture through this filter preset (`none` for none).
    case filter(String)
    /// Start (true) or stop (false) the recording made from the page (`kamera-recording-NNNN.mp4`).
    case record(Bool)
}
