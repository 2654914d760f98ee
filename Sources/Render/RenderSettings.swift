import Filters
import GPU
import Render
/// What the pipeline draws: the filtered preview or the spinning cube.
public enum RenderMode: Equatable, Sendable {
    case preview(PreviewLayout)
    case cube

    /// True when the layout would copy a `width` x `height` picture onto
    /// such an output pixel for pixel: it can then be left out (passthrough).
    func copiesPixelForPixel(width: Int, height: Int, outputWidth: Int, outputHeight: Int) -> Bool {
        guard case .preview(let layout) = self else { return false }
        return layout.copiesPixelForPixel(imageWidth: width, imageHeight: height, outputWidth: outputWidth, outputHeight: outputHeight)
    }
}

/// Everything that decides how a frame becomes output pixels.
public struct RenderSettings: Equatable {
    public var crop: CropMode
    public var filters: FilterChain
    public var mode: RenderMode
    /// Output size; nil takes the size of the cropped frame.
    public var outputSize: (width: Int, height: Int)?
    /// Frames per second, for the cube's angle and custom shaders' `u_time`.
    public var rate: Double
    /// How frames reach the GPU: dma-buf import when possible, or copy.
    public var upload: FrameUploader.Upload = .auto
    /// Where copied YUV frames become RGB: the CPU with a software renderer, else a shader.
    public var yuvConversion: FrameUploader.YUVConversion = .auto

    public init(crop: CropMode = .square, filters: FilterChain = FilterChain(), mode: RenderMode = .preview(PreviewLayout()),
                outputSize: (width: Int, height: Int)? = nil, rate: Double = 30) {
        self.crop = crop
        self.filters = filters
        self.mode = mode
        self.outputSize = outputSize
        self.rate = rate
    }

    public static func == (a: RenderSettings, b: RenderSettings) -> Bool {
        a.crop == b.crop && a.filters == b.filters && a.mode == b.mode && a.rate == b.rate && a.upload == b.upload
            && a.yuvConversion == b.yuvConversion
            && a.outputSize?.width == b.outputSize?.width && a.outputSize?.height == b.outputSize?.height
    }
}
