import Capture

/// Writes frames raw and tightly packed, back to back (the layout `--input FILE
/// --format F --input-size WxH` reads). The file appears under its name only
/// at `finish()` (see `OutputFile`).
public final class RawFrameWriter {
    public let path: String
    private let file: OutputFile

    public init(path: String) throws {
        self.path = path
        file = try OutputFile(path: path)
    }

    public func append(_ frame: Frame) throws {
        for (plane, layout) in zip(frame.planes, frame.format.planeLayouts(width: frame.width, height: frame.height)) {
            for row in 0..<layout.rows {
                try file.write(UnsafeRawBufferPointer(start: plane.bytes.baseAddress! + row * plane.bytesPerRow, count: layout.bytesPerRow))
            }
        }
    }

    /// Puts the file in place under its name.
    public func finish() throws {
        try file.commit()
    }
}
