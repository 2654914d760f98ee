/// Memory a framebuffer's pixels are read back into, RGBA, top row first:
/// allocated on first use and again only when the size changes, so that
/// reading frame after frame of one size allocates nothing.
public final class ReadBackBuffer {
    private var pixels = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    public init() {}

    deinit { pixels.deallocate() }

    /// The last pixels read.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(pixels) }

    /// Reads `framebuffer` whole; `what` names it in an error.
    public func read(_ framebuffer: Framebuffer, what: String) throws -> UnsafeRawBufferPointer {
        let size = framebuffer.width * framebuffer.height * 4
        if pixels.count != size {
            pixels.deallocate()
            pixels = .allocate(byteCount: size, alignment: 64)
        }
        framebuffer.readPixels(into: pixels)
        try GL.check("reading back \(what)")
        return bytes
    }
}
