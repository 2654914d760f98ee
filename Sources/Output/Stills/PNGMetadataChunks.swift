import CDeflate

/// A still's metadata as PNG chunks, put after IHDR: `tEXt` (Software,
/// Creation Time, Source, Filters, and Make/Model for a camera) and the
/// same EXIF block as a JPEG's in `eXIf`.
enum PNGMetadataChunks {
    /// Where the chunks go: after the signature (8 bytes) and IHDR (25).
    static let offset = 33

    static func make(_ metadata: StillMetadata, width: Int, height: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var texts = [("Software", metadata.software), ("Creation Time", metadata.isoDate), ("Source", metadata.source), ("Filters", metadata.filters)]
        if let make = metadata.make { texts.append(("Make", make)) }
        if let model = metadata.model { texts.append(("Model", model)) }
        for (key, value) in texts {
            // tEXt is Latin-1: other characters become '?'.
            let latin1 = value.unicodeScalars.prefix(4096).map { $0.value < 256 && $0.value != 0 ? UInt8($0.value) : UInt8(ascii: "?") }
            append("tEXt", Array(key.utf8) + [0] + latin1, to: &bytes)
        }
        append("eXIf", try EXIFBlock.make(metadata, width: width, height: height, header: false), to: &bytes)
        return bytes
    }

    private static func append(_ type: String, _ data: [UInt8], to bytes: inout [UInt8]) {
        let length = UInt32(data.count)
        bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        let body = Array(type.utf8) + data
        bytes += body
        let crc = body.withUnsafeBytes { UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }
        bytes += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }
}
