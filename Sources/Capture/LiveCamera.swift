/// The camera behind a live source, as the frame loop and the run see it:
/// its device (controls, facts for a still's metadata), the mode it streams,
/// where its buffers live, and zoom on the sensor when it has one.
public protocol LiveCamera: AnyObject {
    var device: CameraDevice { get }
    var mode: CameraMode { get }
    var memory: CameraMemory { get }
    /// The `zoom_absolute` control, when the camera zooms itself.
    var hardwareZoom: CameraControl? { get }
    func setHardwareZoom(_ factor: Double, range: ZoomRange, control: CameraControl) throws
}
