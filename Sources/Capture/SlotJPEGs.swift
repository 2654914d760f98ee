import Pixels

/// An MJPEG camera's frames, each copied out of the driver's buffer into the
/// slot its picture is decoded into, and decoded from that copy: the picture
/// and the JPEG kept beside it are the same bytes even where the driver lets
/// a writer refill a buffer the reader still holds (v4l2loopback does, when
/// the reader lags). An output that sends JPEG may send the camera's own when
/// nothing changed the picture (`Frame.jpeg`). Made once, each as large as
/// the driver's largest buffer, so a steady stream allocates nothing.
final class SlotJPEGs {
    private let copies: [UnsafeMutableRawBufferPointer]
    private var lengths: [Int]

    init(slots: Int, capacity: Int) {
        copies = (0..<slots).map { _ in .allocate(byteCount: max(capacity, 1), alignment: 16) }
        lengths = Array(repeating: 0, count: slots)
    }

    deinit { copies.forEach { $0.deallocate() } }

    /// Copies the frame in `bytes` (as the driver filled it: a JPEG, and
    /// perhaps an older frame's tail after it) for `slot` and returns the copy
    /// to decode; nil, and nothing kept, when it does not fit.
    func keep(_ bytes: UnsafeRawBufferPointer, in slot: Int) -> UnsafeRawBufferPointer? {
        guard bytes.count <= copies[slot].count else {
            lengths[slot] = 0
            return nil
        }
        UnsafeMutableRawBufferPointer(rebasing: copies[slot][0..<bytes.count]).copyMemory(from: bytes)
        lengths[slot] = bytes.count
        return jpeg(in: slot)
    }

    /// The frame kept for `slot`, nil when none was.
    func jpeg(in slot: Int) -> UnsafeRawBufferPointer? {
        lengths[slot] > 0 ? UnsafeRawBufferPointer(rebasing: copies[slot][0..<lengths[slot]]) : nil
    }
}
