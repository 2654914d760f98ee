import CV4L2
import Foundation

/// Compressed formats (MJPEG, H.264, HEVC, FWHT) and those libv4l converts: each
/// frame the driver fills is decoded into a free slot and the driver's buffer
/// goes straight back.
extension CameraSource {
    /// Decodes the frame in `buffer` into `slot`; false when it gave no
    /// picture: damaged, or a stream's frame before its first key frame (each counted).
    /// A decoder that cannot go on stops the camera, unless `--decoder auto`
    /// can go on with the CPU's decoder (then the summary says so).
    func decode(_ buffer: v4l2_buffer, with decoder: FrameDecoder, into slot: Int) throws -> Bool {
        let index = Int(buffer.index)
        let used = buffer.bytesused > 0 ? min(Int(buffer.bytesused), buffers[index].count) : buffers[index].count
        do {
            let filled = UnsafeRawBufferPointer(rebasing: buffers[index][0..<used])
            let data = slotJPEGs?.keep(filled, in: slot) ?? filled
            guard try decoder.decodeFrame(data, into: decoded[slot]) else {
                undecodedFrames += 1
                return false
            }
            return true
        } catch let failure as DecoderFailure {
            guard decoderChoice == .auto, let codec = mode.compressed, codec.decodesOnCPU else { throw failure.error }
            let cpu = try codec.cpuDecoder(width: mode.width, height: mode.height)
            self.decoder = cpu
            slotLock.withLock { decodedBy = Self.decodedBy(cpu, mode) + " since the V4L2 decoder failed: \(failure)" }
            undecodedFrames += 1
            return false
        } catch {
            corruptFrames += 1
            return false
        }
    }

    func takeSlot() -> Int? {
        slotLock.withLock {
            guard let slot = slotTaken.firstIndex(of: false) else { return nil }
            slotTaken[slot] = true
            return slot
        }
    }
}
