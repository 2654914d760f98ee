/// Four-character codes as V4L2 and DRM both spell pixel formats: four ASCII
/// bytes packed little-endian, short names padded with spaces.
public enum FourCC {
    /// The code of `text`; a `-BE` after the four characters sets the top bit, as `text` writes it.
    public static func code(_ text: String) -> UInt32 {
        let bigEndian = text.hasSuffix("-BE") && text.count > 4
        let b = Array((bigEndian ? String(text.dropLast(3)) : text).utf8) + [32, 32, 32, 32]
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24 | (bigEndian ? 1 << 31 : 0)
    }

    /// The text of `code`; the top bit (the big-endian flag of both APIs) is
    /// written `-BE` after it, as `v4l2-ctl` does (`Y16 -BE`).
    public static func text(_ code: UInt32) -> String {
        String(decoding: [UInt8(code & 0xFF), UInt8((code >> 8) & 0xFF), UInt8((code >> 16) & 0xFF), UInt8((code >> 24) & 0x7F)],
               as: UTF8.self) + (code & (1 << 31) != 0 ? "-BE" : "")
    }
}
