import DRM
import GPU

/// A sink that shows frames on a screen of its own (the console's display):
/// it is opened before the GPU context, which is then made on its card. Alone,
/// it takes each frame drawn onto it at its size; beside outputs that take
/// the picture, it shows the picture letterboxed.
public protocol ScreenSink: FrameSink {
    /// Opens the card and chooses connector and mode; nothing on screen changes yet.
    func open() throws -> (card: DRMNode, width: Int, height: Int)
    /// Takes the screen, on a context made on the card `open` gave.
    func attach(context: GPUContext) throws
}
