import Capture
import Glibc

/// Writes frames raw and tightly packed, back to back (the layout `--input FILE
/// --format F --input-size WxH` reads), under a temporary name that `finish`
/// renames into place.
public final class RawFrameWriter {
    public let path: String
    private let temporary: String
    private var file: UnsafeMutablePointer<FILE>?

    public init(path: String) throws {
        try PNGWriter.checkFolder(of: path)
        self.path = path
        temporary = "\(path).\(getpid()).tmp"
        guard let file = fopen(temporary, "wb") else {
            throw OutputError("\(path): cannot write: \(String(cString: strerror(errno)))")
        }
        self.file = file
    }

    deinit {
        if let file {
            fclose(file)
            unlink(temporary)
        }
    }

    public func append(_ frame: Frame) throws {
        guard let file else { return }
        for (plane, layout) in zip(frame.planes, frame.format.planeLayouts(width: frame.width, height: frame.height)) {
            for row in 0..<layout.rows {
                let start = plane.bytes.baseAddress! + row * plane.bytesPerRow
                guard fwrite(start, 1, layout.bytesPerRow, file) == layout.bytesPerRow else {
                    throw OutputError("\(path): cannot write: \(String(cString: strerror(errno)))")
                }
            }
        }
    }

    /// Closes the file and moves it to `path`.
    public func finish() throws {
        guard let file else { return }
        self.file = nil
        guard fclose(file) == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw OutputError("\(path): cannot write: \(reason)")
        }
    }
}
