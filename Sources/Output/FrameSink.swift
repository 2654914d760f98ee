import Render
import Capture
import GPU
import Pixels

/// A destination for rendered frames: files, streams, the display, a
/// recording. Made by its kind (`SinkKind`) before any frame; called on the
/// render thread, once per frame the loop renders.
public protocol FrameSink: AnyObject {
    /// Hears the run's facts once it is built, before the first frame.
    func start(_ run: SinkStart) throws
    /// Takes the frame just rendered. A sink that needs bytes calls
    /// `frame.pixels()`; one that draws on the GPU uses `frame.picture`.
    func consume(_ frame: RenderedFrame) throws
    /// Writes what is done so far (frames encoded on other threads), whole,
    /// without ending the run.
    func flush() throws
    /// Ends the run: writes what is pending, closes streams, puts files in place, gives devices back.
    func finish() throws
    /// After a failure: every frame rendered before it written whole, and
    /// files put in place; what cannot be saved is left.
    func saveWritten()
    /// A screen the renderer may draw each frame's last pass onto directly,
    /// sparing a copy; nil for sinks that take pictures from offscreen.
    var screen: RenderTarget? { get }
    /// A few words for the live status line (`rec 120, dropped 0`); nil for none.
    var statusText: String? { get }
    /// Frames written so far by a sink that writes files or streams; nil for others.
    var written: Int? { get }
    /// What has been written, for a message after a failure; nil for sinks that write nothing.
    var writtenSummary: String? { get }
}

extension FrameSink {
    public func start(_ run: SinkStart) throws {}
    public func flush() throws {}
    public func finish() throws {}
    public func saveWritten() {}
    public var screen: RenderTarget? { nil }
    public var statusText: String? { nil }
    public var written: Int? { nil }
    public var writtenSummary: String? { nil }
}
