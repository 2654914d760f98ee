/// One step of a frame's GPU work between the conversion and the layout: a
/// filter, or the shader harness's passes. It reads the picture so far as a
/// texture and returns the texture the next step reads. The framebuffers it
/// draws into are its own, made on first use and reused, so a run of frames
/// of one size allocates nothing. Called on the thread that owns the context.
public protocol RenderStage: AnyObject {
    /// Draws this stage's passes from `input`; the texture returned stays
    /// valid until this stage renders again.
    func render(_ input: TextureView, _ frame: StageFrame) throws -> TextureView
    /// Render passes the last `render` drew.
    var passes: Int { get }
}

/// What the stages of one frame share: the frame's number and time, the
/// size of the output, and the GL helpers made once per context.
public struct StageFrame {
    /// The frame's number in the run, from 0.
    public var index: Int
    /// Seconds since the first frame, at `frameRate`.
    public var time: Double
    public var frameRate: Double
    /// The size of the picture the layout draws (a shader's `iResolution`).
    public var outputWidth: Int
    public var outputHeight: Int
    public let copier: TextureCopier
    /// The part of the source frame the picture shows, in its pixels: x, y, width, height.
    public var sourceCrop = SIMD4<Int>(0, 0, 0, 0)
    /// The faces found in the frame (`--detect faces`), in the cropped
    /// picture's coordinates from 0 to 1, top row 0: left, top, right, bottom.
    public var faces: [SIMD4<Float>] = []

    public init(index: Int, time: Double, frameRate: Double, outputWidth: Int, outputHeight: Int, copier: TextureCopier) {
        self.index = index
        self.time = time
        self.frameRate = frameRate
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.copier = copier
    }
}
