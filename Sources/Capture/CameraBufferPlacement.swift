/// Where a camera's buffers go, asked when the camera has chosen its mode:
/// the stage that reads the frames decides (the GPU importing dma-bufs, or a
/// copy from mapped buffers), as a downstream element answers GStreamer's
/// allocation query. A source made without one maps its buffers.
public protocol CameraBufferPlacement: AnyObject {
    /// The memory for `mode`'s buffers; throws when the placement asked for
    /// cannot be had and copying was ruled out.
    func memory(for mode: CameraMode) throws -> CameraMemory
    /// Why the frames will be copied, once `memory(for:)` chose that.
    var reason: String? { get }
    /// Whether mapped buffers may stand in when the camera refuses the memory chosen.
    var mapsWhenRefused: Bool { get }
    /// Called when a source stops: buffers imported from its camera are dropped.
    func forgetBuffers()
}
