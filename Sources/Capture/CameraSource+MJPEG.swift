import CV4L2
import Foundation

/// MJPEG: each JPEG the driver fills is decoded into a free slot and the
/// driver's buffer goes straight back.
extension CameraSource {
    /// Decodes the JPEG in `buffer` and queues the buffer again; returns the
    /// slot holding the frame, or nil when the frame was dropped (every slot
    /// still held by the consumer) or could not be decoded (counted).
    func decode(_ buffer: v4l2_buffer, with decoder: JPEGDecoder) throws -> Int? {
        let index = Int(buffer.index)
        let used = buffer.bytesused > 0 ? min(Int(buffer.bytesused), buffers[index].count) : buffers[index].count
        guard let slot = takeSlot() else {
            try queue(buffer.index)
            return nil
        }
        do {
            try decoder.decode(UnsafeRawBufferPointer(rebasing: buffers[index][0..<used]), into: decoded[slot])
        } catch {
            corruptFrames += 1
            try requeue(slot)
            try queue(buffer.index)
            return nil
        }
        try queue(buffer.index)
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
