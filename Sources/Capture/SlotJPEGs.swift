import Pixels

/// An MJPEG camera's JPEGs, kept beside the pictures decoded from them, one
/// per slot (the driver's buffer goes back as soon as a frame is decoded):
/// an output that sends JPEG may send the camera's own when nothing changed
/// the picture (`Frame.jpeg`). Made once, each as large as the driver's
/// largest frame, so a steady stream allocates nothing.
final class SlotJPEGs {
    private let copies: [UnsafeMutableRawBufferPointer]
    private var lengths: [Int]

    init(slots: Int, capacity: Int) {
        copies = (0..<slots).map { _ in .allocate(byteCount: max(capacity, 1), alignment: 16) }
        lengths = Array(repeating: 0, count: slots)
    }

    deinit { copies.forEach { $0.deallocate() } }

    /// Keeps the JPEG at the start of `bytes` (a driver's buffer may hold more
    /// after its end) for `slot`; keeps none when a browser could not show it as
    /// it is (no Huffman tables of its own, as many webcams send), it is not
    /// whole, or it does not fit.
    func keep(_ bytes: UnsafeRawBufferPointer, in slot: Int) {
        guard let length = Self.imageLength(bytes), length <= copies[slot].count else {
            lengths[slot] = 0
            return
        }
        UnsafeMutableRawBufferPointer(rebasing: copies[slot][0..<length]).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
        lengths[slot] = length
    }

    /// The JPEG kept for `slot`, nil when none was.
    func jpeg(in slot: Int) -> UnsafeRawBufferPointer? {
        lengths[slot] > 0 ? UnsafeRawBufferPointer(rebasing: copies[slot][0..<lengths[slot]]) : nil
    }

    /// The bytes of the JPEG at the start of `bytes`, through its end-of-image
    /// marker, when it defines Huffman tables (DHT) before its first scan; nil
    /// otherwise. Only the markers are read: the segments' lengths, and in the
    /// scans' data the next byte that is neither stuffing nor a restart.
    static func imageLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2, tables = false
        while at + 1 < bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }     // fill byte
            if marker == 0xD9 { return nil }             // end of image before any scan
            guard at + 4 <= bytes.count else { return nil }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2 else { return nil }
            if marker == 0xC4 { tables = true }
            at += 2 + length
            guard marker == 0xDA else { continue }
            guard tables else { return nil }
            // The scan's data runs to the next marker: 0xFF 0x00 is a stuffed 0xFF, 0xFF 0xD0-0xD7 a restart.
            while at + 1 < bytes.count {
                if bytes[at] != 0xFF { at += 1; continue }
                let next = bytes[at + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) { at += 2; continue }
                if next == 0xFF { at += 1; continue }
                if next == 0xD9 { return at + 2 }
                break                                    // more segments: a progressive JPEG's next tables and scans
            }
        }
        return nil
    }
}
