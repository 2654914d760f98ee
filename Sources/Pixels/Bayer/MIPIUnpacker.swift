/// Unpacks MIPI CSI-2 packed Bayer rows into little-endian 16-bit words, the
/// layout of the unpacked formats: 10 bits as 4 samples in 5 bytes (the high
/// 8 bits of each, then one byte with the low 2 bits of sample 0 in bits 1:0,
/// sample 1 in 3:2, ...), 12 bits as 2 samples in 3 bytes (high 8 bits each,
/// then sample 0's low nibble in bits 3:0 and sample 1's in 7:4).
public enum MIPIUnpacker {
    /// `frame` (`bayer10p` or `bayer12p`) unpacked into `buffer` (`bayer16`,
    /// the frame's size): the same samples, as 16-bit words.
    public static func unpacked(_ frame: Frame, into buffer: FrameBuffer) -> Frame {
        let bits = frame.format.mipiBits!
        precondition(buffer.format == .bayer16 && buffer.width == frame.width && buffer.height == frame.height)
        unpack(frame.planes[0], bits: bits, width: frame.width, height: frame.height, into: buffer.mutablePlane(0).baseAddress!,
               bytesPerRow: buffer.planes[0].bytesPerRow)
        var unpacked = buffer.frame(sequence: frame.sequence, timestamp: frame.timestamp, colorSpace: frame.colorSpace)
        unpacked.bayer = frame.bayer.map { RawBayer(format: $0.format.unpacked, settings: $0.settings, gains: $0.gains) }
        return unpacked
    }

    static func unpack(_ plane: Plane, bits: Int, width: Int, height: Int, into out: UnsafeMutableRawPointer, bytesPerRow: Int) {
        for y in 0..<height {
            unpackRow(plane.bytes.baseAddress! + y * plane.bytesPerRow, bits: bits, width: width,
                      into: (out + y * bytesPerRow).assumingMemoryBound(to: UInt16.self))
        }
    }

    /// One row of `width` samples.
    static func unpackRow(_ row: UnsafeRawPointer, bits: Int, width: Int, into d: UnsafeMutablePointer<UInt16>) {
        let s = row.assumingMemoryBound(to: UInt8.self)
        if bits == 10 {
            for group in 0..<width / 4 {
                let p = s + group &* 5, q = d + group &* 4, low = UInt16(p[4])
                q[0] = (UInt16(p[0]) << 2 | low & 3).littleEndian
                q[1] = (UInt16(p[1]) << 2 | low >> 2 & 3).littleEndian
                q[2] = (UInt16(p[2]) << 2 | low >> 4 & 3).littleEndian
                q[3] = (UInt16(p[3]) << 2 | low >> 6).littleEndian
            }
        } else {
            for pair in 0..<width / 2 {
                let p = s + pair &* 3, q = d + pair &* 2, low = UInt16(p[2])
                q[0] = (UInt16(p[0]) << 4 | low & 15).littleEndian
                q[1] = (UInt16(p[1]) << 4 | low >> 4).littleEndian
            }
        }
    }
}
