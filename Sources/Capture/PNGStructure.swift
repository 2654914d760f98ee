import Pixels
/// The chunk layout of a PNG file, checked before libpng reads it: every
/// chunk must fit in the file (a damaged length would have libpng allocate up
/// to 2 GiB for it), the size must be within `FrameLimits`, and the image data
/// must be long enough to hold the image the header declares at zlib's best
/// ratio (1032:1), so a tiny file cannot claim a huge image.
struct PNGStructure {
    let width: Int
    let height: Int

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Walks the chunks of the PNG file at `path` (a pipe or device is left to libpng).
    static func check(_ reader: FileReader) throws -> PNGStructure? {
        guard reader.isRegular else { return nil }
        let name = reader.path
        var header = [UInt8](repeating: 0, count: 8)
        guard header.withUnsafeMutableBytes({ reader.read(into: $0) }) == 8, header == signature else {
            throw CaptureError("\(name): neither a PNG nor a JPEG picture (it starts with neither one's signature); give a .png or .jpg image")
        }
        var ihdr: [UInt8]?
        var imageData = 0
        while true {
            let start = reader.offset
            guard header.withUnsafeMutableBytes({ reader.read(into: $0) }) == 8 else { break }  // no IEND: libpng decides
            let length = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if type == "IEND" { break }  // the end, whatever its length field says (libpng reads no further)
            guard length <= 0x7FFF_FFFF else {
                throw CaptureError("\(name): damaged PNG: chunk '\(excerpt(type))' at byte \(start) declares \(length) bytes, more than the format allows")
            }
            let left = reader.size - start - 12
            guard length <= left else {
                throw CaptureError("\(name): damaged PNG: chunk '\(excerpt(type))' at byte \(start) declares \(length) bytes, but only \(max(0, left)) are left in the file")
            }
            switch type {
            case "IHDR" where ihdr == nil && length == 13:
                var data = [UInt8](repeating: 0, count: 13)
                _ = data.withUnsafeMutableBytes { reader.read(into: $0) }
                ihdr = data
                reader.seek(to: start + 8 + length + 4)
            case "IDAT":
                imageData += length
                reader.seek(to: start + 8 + length + 4)
            default:
                reader.seek(to: start + 8 + length + 4)
            }
        }
        guard let ihdr else {
            throw CaptureError("\(name): damaged PNG: no valid IHDR chunk (the image header); give a .png image")
        }
        func be32(_ i: Int) -> Int { ihdr[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        let width = be32(0), height = be32(4), depth = Int(ihdr[8])
        guard width > 0, height > 0 else {
            throw CaptureError("\(name): damaged PNG: its header gives a \(width)x\(height) image")
        }
        guard FrameLimits.allows(width: width, height: height) else {
            throw CaptureError("\(name): the image is \(width)x\(height), too large; Kamera reads images of \(FrameLimits.summary)")
        }
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(ihdr[9])] ?? 1
        let rowBytes = (width * channels * max(1, depth) + 7) / 8
        let needed = height * (1 + rowBytes)
        guard imageData * 1032 + 1024 >= needed else {
            throw CaptureError("\(name): damaged PNG: a \(width)x\(height) image needs at least \(needed / 1032) bytes of image data, the file has \(imageData)")
        }
        // Deflate never grows data by more than a few bytes a block: image data far beyond the
        // image's own size (interlacing's extra filter bytes allowed) only inflates into waste.
        let most = needed + 8 * (height + 7)
        let limit = most + most / 100 + 65536
        guard imageData <= limit else {
            throw CaptureError("\(name): damaged PNG: \(imageData) bytes of image data, more than a \(width)x\(height) image can take (at most \(limit)); a damaged or crafted file")
        }
        return PNGStructure(width: width, height: height)
    }
}
