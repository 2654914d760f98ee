import CV4L2
import Pixels

/// Formats Kamera repacks (`RepackedFormat`) or demosaics: each frame the driver fills is
/// repacked into a free slot of the native layout, and the driver's buffer
/// goes straight back, as MJPEG frames are decoded.
extension CameraSource {
    /// Repacks the frame in `buffer` and queues the buffer again; returns the
    /// slot holding the frame, or nil when every slot is still held by the consumer (dropped).
    func repack(_ buffer: v4l2_buffer, with repacker: FrameRepacker) throws -> Int? {
        guard let slot = takeSlot() else {
            try queue(buffer.index)
            return nil
        }
        slotBayer[slot] = repacker.repack(bufferPlanes[Int(buffer.index)], into: decoded[slot])
        try queue(buffer.index)
        return slot
    }
}
