/// Memory for one frame, allocated once and refilled for every frame a source
/// produces, so that steady state allocates nothing.
public final class FrameBuffer {
    public let format: PixelFormat
    public let width: Int
    public let height: Int
    public let planes: [Plane]
    private let memory: UnsafeMutableRawBufferPointer

    public init(format: PixelFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
        let layouts = format.planeLayouts(width: width, height: height)
        memory = .allocate(byteCount: max(1, format.frameSize(width: width, height: height)), alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0)
        var offset = 0
        var planes: [Plane] = []
        for layout in layouts {
            let size = layout.bytesPerRow * layout.rows
            planes.append(Plane(bytes: UnsafeRawBufferPointer(rebasing: memory[offset..<offset + size]),
                                bytesPerRow: layout.bytesPerRow))
            offset += size
        }
        self.planes = planes
    }

    deinit { memory.deallocate() }

    /// The writable bytes of plane `index`.
    public func mutablePlane(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(mutating: planes[index].bytes)
    }

    /// All planes back to back, as a raw file or a Y4M frame stores them.
    public var allBytes: UnsafeMutableRawBufferPointer { memory }

    public func frame(sequence: UInt64, timestamp: UInt64, colorSpace: YUVColorSpace = .bt601Limited) -> Frame {
        Frame(format: format, width: width, height: height, planes: planes, timestamp: timestamp,
              sequence: sequence, colorSpace: colorSpace, storage: self)
    }
}
