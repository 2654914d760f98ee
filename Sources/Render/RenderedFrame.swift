import GPU
import Pixels

/// Where a rendered frame's picture is.
public enum RenderedPicture {
    /// Drawn on the GPU, into this target: the renderer's output framebuffer, or a screen.
    case drawn(RenderTarget)
    /// In memory only: the CPU's conversion of the frame is the whole picture
    /// and nothing is drawn (a passthrough, never with a screen). It is
    /// converted when a sink first asks, to RGBA (`pixels()`) or straight to
    /// the 4:2:0 planes a recording takes (`yuv420(in:)`).
    case inMemory(width: Int, height: Int)

    public var width: Int {
        switch self {
        case .drawn(let target): target.width
        case .inMemory(let width, _): width
        }
    }

    public var height: Int {
        switch self {
        case .drawn(let target): target.height
        case .inMemory(_, let height): height
        }
    }
}

/// A frame just rendered, valid during `consume`.
public struct RenderedFrame {
    /// The frame's number in this run, from 0.
    public let index: Int
    /// The input frame it was rendered from.
    public let input: Frame
    /// The rendered picture: on the GPU (the renderer's output framebuffer,
    /// or a sink's `screen` when the frame was drawn straight onto it), or in
    /// memory only.
    public let picture: RenderedPicture
    /// True when the run is known to end with this frame (its `--frames`
    /// count): outputs that keep only the latest picture now and then write it.
    public let isLast: Bool
    /// The camera's own JPEG of the frame when it is this very picture (an
    /// MJPEG camera's frame that nothing changed): an output that sends JPEG
    /// may send it as it is instead of encoding the picture.
    public let cameraJPEG: UnsafeRawBufferPointer?
    private let source: PixelSource

    public init(index: Int, input: Frame, picture: RenderedPicture, pixels source: PixelSource, isLast: Bool = false,
                cameraJPEG: UnsafeRawBufferPointer? = nil) {
        self.index = index
        self.input = input
        self.picture = picture
        self.source = source
        self.isLast = isLast
        self.cameraJPEG = cameraJPEG
    }

    /// The picture as RGBA bytes, top row first: read back from the GPU once
    /// per frame, whichever sinks ask; valid until the next frame.
    public func pixels() throws -> UnsafeRawBufferPointer {
        try source.readBack()
    }

    /// The picture as planar 4:2:0 Y'CbCr in `colorSpace` (Y', Cb, Cr, each
    /// tight), when it can be had without RGB between: a picture in memory,
    /// converted straight from the frame's YUV bytes. Nil otherwise, for the
    /// sink to convert `pixels()` itself. Valid until the next frame.
    /// `destination`: where to write them (`YUVToYUV420.frameSize` bytes at
    /// least), saving a copy for a sink that keeps them.
    public func yuv420(in colorSpace: YUVColorSpace, into destination: UnsafeMutableRawBufferPointer? = nil) throws -> UnsafeRawBufferPointer? {
        try source.readBackYUV420(colorSpace, into: destination)
    }

    public var width: Int { picture.width }
    public var height: Int { picture.height }

    /// The picture, to read once more after `consume`: at the end of a run,
    /// for an output that keeps only the latest picture now and then.
    public var latest: LatestPicture { LatestPicture(index: index, width: width, height: height, source: source) }
}

/// The last frame's picture, readable until the renderer draws another (it
/// keeps what it drew, or the frame its conversion reads).
public struct LatestPicture {
    public let index: Int
    public let width: Int, height: Int
    fileprivate let source: PixelSource

    /// RGBA bytes, top row first.
    public func pixels() throws -> UnsafeRawBufferPointer { try source.readBack() }
}

/// Reads the last rendered picture back from the GPU (the frame renderer).
public protocol PixelSource: AnyObject {
    /// RGBA bytes, top row first, valid until the next frame.
    func readBack() throws -> UnsafeRawBufferPointer
    /// Planar 4:2:0 bytes in `colorSpace` made without an RGB picture, or nil (see `RenderedFrame.yuv420(in:into:)`).
    func readBackYUV420(_ colorSpace: YUVColorSpace, into destination: UnsafeMutableRawBufferPointer?) throws -> UnsafeRawBufferPointer?
}

extension PixelSource {
    public func readBackYUV420(_ colorSpace: YUVColorSpace, into destination: UnsafeMutableRawBufferPointer?) throws -> UnsafeRawBufferPointer? { nil }
}
