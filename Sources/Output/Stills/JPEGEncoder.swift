import CJPEG
import Foundation

/// Encodes RGBA pixels to JPEG with libjpeg-turbo, an EXIF block in APP1
/// after the JFIF header. The buffer is made once for the largest JPEG of the size.
public final class JPEGEncoder {
    public let settings: JPEGSettings
    private let handle: tjhandle
    private var buffer: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    private var output = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    public init(settings: JPEGSettings = JPEGSettings()) throws {
        try settings.check()
        guard let handle = tjInitCompress() else { throw OutputError("libjpeg-turbo cannot start a JPEG encoder") }
        self.settings = settings
        self.handle = handle
    }

    deinit {
        tjFree(buffer)
        tjDestroy(handle)
        output.deallocate()
    }

    /// The JPEG, valid until the next call; with `metadata`, carrying it as EXIF.
    public func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, metadata: StillMetadata?) throws -> UnsafeRawBufferPointer {
        let sampling = settings.subsampling == .s444 ? TJSAMP_444 : TJSAMP_420
        let needed = Int(tjBufSize(Int32(width), Int32(height), Int32(sampling.rawValue)))
        if capacity < needed {
            tjFree(buffer)
            buffer = tjAlloc(Int32(needed))
            capacity = buffer == nil ? 0 : needed
            guard buffer != nil else { throw OutputError("out of memory for a \(width)x\(height) JPEG") }
        }
        var size = UInt(capacity)
        let status = tjCompress2(handle, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(width * 4),
                                 Int32(height), Int32(TJPF_RGBA.rawValue), &buffer, &size, Int32(sampling.rawValue),
                                 Int32(settings.quality), TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT)
        guard status == 0 else { throw OutputError("cannot encode a \(width)x\(height) JPEG: \(String(cString: tjGetErrorStr2(handle)))") }
        let jpeg = UnsafeRawBufferPointer(start: buffer, count: Int(size))
        guard let metadata, !metadata.isStripped else { return jpeg }
        // APP1 goes after SOI and the JFIF APP0 segment.
        let exif = try EXIFBlock.make(metadata, width: width, height: height, header: true)
        guard exif.count + 2 <= 0xFFFF else { throw OutputError("the EXIF block is too long for a JPEG") }
        var at = 2
        if jpeg.count > 4, jpeg[2] == 0xFF, jpeg[3] == 0xE0 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        let total = jpeg.count + exif.count + 4
        if output.count < total {
            output.deallocate()
            output = .allocate(byteCount: total, alignment: 16)
        }
        output.copyMemory(from: UnsafeRawBufferPointer(rebasing: jpeg[0..<at]))
        let length = exif.count + 2
        let marker: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
        UnsafeMutableRawBufferPointer(rebasing: output[at..<(at + 4)]).copyBytes(from: marker)
        UnsafeMutableRawBufferPointer(rebasing: output[(at + 4)..<(at + 4 + exif.count)]).copyBytes(from: exif)
        UnsafeMutableRawBufferPointer(rebasing: output[(at + 4 + exif.count)..<total]).copyMemory(from: UnsafeRawBufferPointer(rebasing: jpeg[at...]))
        return UnsafeRawBufferPointer(rebasing: output[0..<total])
    }
}
