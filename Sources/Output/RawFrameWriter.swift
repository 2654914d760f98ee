import Capture
import Messages
import Pixels

/// Writes frames raw and tightly packed, back to back (the layout `--input FILE
/// --format F --input-size WxH` reads). The file appears under its name only
/// at `finish()` (see `OutputFile`).
public final class RawFrameWriter {
    public let path: String
    private let file: OutputFile
    /// Each frame is packed here and written in one call. Frames may live in
    /// device memory (a camera's dma-buf), which some filesystems cannot
    /// write from directly (9p answers EFAULT).
    private var packed = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// The frames' format and size, from the first one, and how many were written.
    public private(set) var layout: (format: PixelFormat, width: Int, height: Int)?
    /// The name `--format` reads the frames back with (a raw Bayer frame's own).
    private var formatName = ""
    public private(set) var frames = 0

    public init(path: String) throws {
        self.path = path
        file = try OutputFile(path: path)
    }

    /// What the file holds and how to read it back, for the user: a raw file says nothing of itself.
    public var summary: String? {
        guard let layout else { return nil }
        let bytes = layout.format.planeLayouts(width: layout.width, height: layout.height).reduce(0) { $0 + $1.bytesPerRow * $1.rows }
        return "\(path): \(frames) raw \(formatName) \(layout.width)x\(layout.height) frame(s), \(bytes) bytes each; "
            + "read it back with \(Setting.input) \(path) \(Setting.format) \(formatName) \(Setting.inputSize) \(layout.width)x\(layout.height)"
    }

    deinit { packed.deallocate() }

    public func append(_ frame: Frame) throws {
        let layouts = frame.format.planeLayouts(width: frame.width, height: frame.height)
        let size = layouts.reduce(0) { $0 + $1.bytesPerRow * $1.rows }
        if packed.count != size {
            packed.deallocate()
            packed = .allocate(byteCount: size, alignment: 64)
        }
        var offset = 0
        for (plane, layout) in zip(frame.planes, layouts) {
            for row in 0..<layout.rows {
                let source = UnsafeRawBufferPointer(start: plane.bytes.baseAddress! + row * plane.bytesPerRow, count: layout.bytesPerRow)
                UnsafeMutableRawBufferPointer(rebasing: packed[offset..<offset + layout.bytesPerRow]).copyMemory(from: source)
                offset += layout.bytesPerRow
            }
        }
        try file.write(UnsafeRawBufferPointer(packed))
        if layout == nil {
            layout = (frame.format, frame.width, frame.height)
            formatName = frame.bayer?.format.name ?? frame.format.name
        }
        frames += 1
    }

    /// Puts the file in place under its name.
    public func finish() throws {
        try file.commit()
    }
}
