import CV4L2
import Pixels

/// Formats Kamera repacks (`RepackedFormat`): each frame the driver fills is
/// repacked into a free slot of the native layout, and the driver's buffer
/// goes straight back, as MJPEG frames are decoded.
extension CameraSource {
    /// Repacks the frame in `buffer` and queues the buffer again; returns the
    /// slot holding the frame, or nil when every slot is still held by the consumer (dropped).
    func repack(_ buffer: v4l2_buffer, from format: RepackedFormat) throws -> Int? {
        guard let slot = takeSlot() else {
            try queue(buffer.index)
            return nil
        }
        format.repack(bufferPlanes[Int(buffer.index)], into: decoded[slot])
        try queue(buffer.index)
        return slot
    }

    /// The planes of a frame of `format` in one driver buffer (the
    /// single-planar API): each after the other, a chroma plane's stride
    /// scaled from the luma's as its width is (half for YU12's U and V).
    /// `memory` holds at least the planes' bytes (checked by the caller with `wireStrides`).
    func wirePlanes(in memory: UnsafeMutableRawBufferPointer, _ format: RepackedFormat, bytesPerRow: Int) -> [Plane] {
        var offset = 0
        return wireStrides(format, bytesPerRow: bytesPerRow).map { plane in
            defer { offset += plane.stride * plane.rows }
            return Plane(bytes: UnsafeRawBufferPointer(rebasing: memory[offset..<offset + plane.stride * plane.rows]), bytesPerRow: plane.stride)
        }
    }

    func wireStrides(_ format: RepackedFormat, bytesPerRow: Int) -> [(stride: Int, rows: Int)] {
        let layouts = format.planeLayouts(width: mode.width, height: mode.height)
        return layouts.map { (max($0.bytesPerRow, bytesPerRow * $0.bytesPerRow / layouts[0].bytesPerRow), $0.rows) }
    }
}
