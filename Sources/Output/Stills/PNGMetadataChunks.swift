/// A still's metadata as PNG chunks, put after IHDR: `tEXt` (Software,
/// Creation Time, Source, Filters, and Make/Model for a camera) and the
/// same EXIF block as a JPEG's in `eXIf`.
enum PNGMetadataChunks {
    /// Where the chunks go: after the signature (8 bytes) and IHDR (25), which PNG puts first.
    static let offset = 33

    static func make(_ metadata: StillMetadata, width: Int, height: Int) throws -> [UInt8] {
        var texts = [("Software", metadata.software), ("Creation Time", metadata.isoDate), ("Source", metadata.source), ("Filters", metadata.filters)]
        if let make = metadata.make { texts.append(("Make", make)) }
        if let model = metadata.model { texts.append(("Model", model)) }
        var chunks: [(type: StaticString, data: [UInt8])] = texts.map { key, value in
            // tEXt is Latin-1: other characters become '?'.
            let latin1 = value.unicodeScalars.prefix(4096).map { $0.value < 256 && $0.value != 0 ? UInt8($0.value) : UInt8(ascii: "?") }
            return ("tEXt", Array(key.utf8) + [0] + latin1)
        }
        chunks.append(("eXIf", try EXIFBlock.make(metadata, width: width, height: height, header: false)))
        let total = chunks.reduce(0) { $0 + PNGChunkWriter.size(ofChunkHolding: $1.data.count) }
        var bytes = [UInt8](repeating: 0, count: total)
        bytes.withUnsafeMutableBufferPointer { buffer in
            var writer = PNGChunkWriter(into: buffer.baseAddress!)
            for chunk in chunks {
                writer.begin(chunk.type, length: chunk.data.count)
                writer.put(chunk.data)
                writer.end()
            }
        }
        return bytes
    }

    /// Hands `png` (a whole PNG, IHDR first) to `write` in parts, with
    /// `metadata`'s chunks after its IHDR; the picture's bytes are not copied.
    static func write(_ png: UnsafeRawBufferPointer, with metadata: StillMetadata, to write: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard png.count > offset, !metadata.isStripped else { return try write(png) }
        // The size is in IHDR: bytes 16-23.
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        let chunks = try make(metadata, width: width, height: height)
        try write(UnsafeRawBufferPointer(rebasing: png[..<offset]))
        try chunks.withUnsafeBytes { try write($0) }
        try write(UnsafeRawBufferPointer(rebasing: png[offset...]))
    }
}
