import CDeflate

/// PNG's framing written into memory: the signature, and each chunk as its
/// data's length, its type, the data and the CRC of type and data (libdeflate's
/// crc32). The one place Kamera frames PNG chunks: the encoder's IHDR, IDAT
/// and IEND, and a still's metadata chunks.
struct PNGChunkWriter {
    let base: UnsafeMutablePointer<UInt8>
    /// Where the next byte goes.
    private(set) var at: Int
    private var typeStart = 0

    init(into base: UnsafeMutablePointer<UInt8>, at: Int = 0) {
        self.base = base
        self.at = at
    }

    /// Bytes a chunk holding `count` data bytes takes.
    static func size(ofChunkHolding count: Int) -> Int { 12 + count }

    mutating func signature() {
        put8(0x89)
        put("PNG\r\n\u{1A}\n")
    }

    /// Starts a chunk of `type` whose data is `length` bytes.
    mutating func begin(_ type: StaticString, length: Int) {
        put32(UInt32(length))
        typeStart = at
        put(type)
    }

    /// Ends the chunk begun last: its CRC.
    mutating func end() { put32(UInt32(libdeflate_crc32(0, base + typeStart, at - typeStart))) }

    /// Passes over `count` bytes of data already in place.
    mutating func skip(_ count: Int) { at += count }

    mutating func put(_ bytes: StaticString) {
        for i in 0..<bytes.utf8CodeUnitCount { base[at + i] = bytes.utf8Start[i] }
        at += bytes.utf8CodeUnitCount
    }

    mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { (base + at).update(from: $0.baseAddress!, count: $0.count) }
        at += bytes.count
    }

    mutating func put8(_ v: UInt8) {
        base[at] = v
        at += 1
    }

    mutating func put32(_ v: UInt32) {
        put8(UInt8(truncatingIfNeeded: v >> 24))
        put8(UInt8(truncatingIfNeeded: v >> 16))
        put8(UInt8(truncatingIfNeeded: v >> 8))
        put8(UInt8(truncatingIfNeeded: v))
    }
}
