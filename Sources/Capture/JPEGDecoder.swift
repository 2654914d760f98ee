import CJPEG
import Pixels

/// Decodes JPEG frames (a camera's MJPEG) with libjpeg-turbo's TurboJPEG API,
/// which reports errors as return codes, straight into RGBA frame memory.
public final class JPEGDecoder {
    private let handle: tjhandle

    public init() throws {
        guard let handle = tjInitDecompress() else { throw CaptureError("cannot start the JPEG decoder") }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// The width and height in a JPEG's header.
    public func size(of jpeg: UnsafeRawBufferPointer) throws -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, jpeg.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
                                  &w, &h, &subsampling, &colorspace) == 0 else {
            throw CaptureError("not a JPEG frame: \(message)")
        }
        return (Int(w), Int(h))
    }

    /// Decodes `jpeg` into `target` (RGBA of the JPEG's size). Bytes after the
    /// end-of-image marker are ignored; a warning (a damaged but decodable
    /// frame: cut short, a corrupt segment) is returned, not thrown: a
    /// camera's damaged frame passes, a still may be refused for it.
    @discardableResult
    public func decode(_ jpeg: UnsafeRawBufferPointer, into target: FrameBuffer) throws -> String? {
        let (w, h) = try size(of: jpeg)
        guard w == target.width, h == target.height, target.format == .rgba else {
            throw CaptureError("JPEG frame is \(w)x\(h), expected \(target.width)x\(target.height)")
        }
        let result = tjDecompress2(handle, jpeg.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
                                   target.allBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(w), Int32(w * 4),
                                   Int32(h), Int32(TJPF_RGBA.rawValue), 0)
        guard result != 0 else { return nil }
        guard tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) else {
            throw CaptureError("cannot decode a JPEG frame: \(message)")
        }
        return message
    }

    private var message: String { String(cString: tjGetErrorStr2(handle)) }
}
