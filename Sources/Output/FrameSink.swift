import Capture
import GPU

/// A destination for rendered frames: a PNG file or sequence, the KMS
/// display. Called on the render thread, once per frame the loop renders.
public protocol FrameSink: AnyObject {
    /// Takes the frame just rendered. A sink that needs bytes calls
    /// `frame.pixels()`; one that draws on the GPU uses `frame.framebuffer`.
    func consume(_ frame: RenderedFrame) throws
    /// Ends the run: closes streams, puts devices back.
    func finish() throws
}

extension FrameSink {
    public func finish() throws {}
}

/// A frame in the renderer's output framebuffer, valid during `consume`.
public struct RenderedFrame {
    /// The frame's number in this run, from 0.
    public let index: Int
    /// The input frame it was rendered from.
    public let input: Frame
    /// The rendered picture, on the GPU.
    public let framebuffer: Framebuffer
    private let source: PixelSource

    public init(index: Int, input: Frame, framebuffer: Framebuffer, pixels source: PixelSource) {
        self.index = index
        self.input = input
        self.framebuffer = framebuffer
        self.source = source
    }

    /// The picture as RGBA bytes, top row first: read back from the GPU once
    /// per frame, whichever sinks ask; valid until the next frame.
    public func pixels() throws -> UnsafeRawBufferPointer {
        try source.readBack()
    }

    public var width: Int { framebuffer.width }
    public var height: Int { framebuffer.height }
}

/// Reads the last rendered picture back from the GPU (the frame renderer).
public protocol PixelSource: AnyObject {
    /// RGBA bytes, top row first, valid until the next frame.
    func readBack() throws -> UnsafeRawBufferPointer
}
