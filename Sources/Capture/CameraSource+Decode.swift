import CV4L2
import Foundation

/// Compressed formats (MJPEG, H.264, HEVC) and those libv4l converts: each
/// frame the driver fills is decoded into a free slot and the driver's buffer
/// goes straight back.
extension CameraSource {
    /// Decodes the frame in `buffer` and queues the buffer again; returns the
    /// slot holding the frame, or nil when the frame was dropped (every slot
    /// still held by the consumer), could not be decoded or gave no picture yet (both counted).
    func decode(_ buffer: v4l2_buffer, with decoder: FrameDecoder) throws -> Int? {
        let index = Int(buffer.index)
        let used = buffer.bytesused > 0 ? min(Int(buffer.bytesused), buffers[index].count) : buffers[index].count
        guard let slot = takeSlot() else {
            try queue(buffer.index)
            return nil
        }
        let pictured: Bool
        do {
            // false: a stream decoder with no picture yet (before the first key frame).
            pictured = try decoder.decodeFrame(UnsafeRawBufferPointer(rebasing: buffers[index][0..<used]), into: decoded[slot])
            if !pictured { undecodedFrames += 1 }
        } catch {
            pictured = false
            corruptFrames += 1
        }
        try queue(buffer.index)
        guard pictured else {
            try requeue(slot)
            return nil
        }
        return slot
    }

    func takeSlot() -> Int? {
        slotLock.lock()
        defer { slotLock.unlock() }
        guard let slot = slotTaken.firstIndex(of: false) else { return nil }
        slotTaken[slot] = true
        return slot
    }
}
