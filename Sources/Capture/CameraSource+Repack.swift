import CV4L2
import Pixels

/// Formats Kamera repacks (`RepackedFormat`) or demosaics: each frame the driver fills is
/// repacked into a free slot of the native layout, and the driver's buffer
/// goes straight back, as MJPEG frames are decoded.
extension CameraSource {
    /// Repacks (or demosaics, or copies the mosaic of) the frame in `buffer` into `slot`.
    func repack(_ buffer: v4l2_buffer, with repacker: FrameRepacker, into slot: Int) {
        slotBayer[slot] = repacker.repack(bufferPlanes[Int(buffer.index)], into: decoded[slot])
    }
}
