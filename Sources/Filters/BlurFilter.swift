import CGLES
import Foundation
import GPU
import Shaders

/// Gaussian blur of standard deviation `sigma` pixels, edges clamped (as
/// GPUImage's GaussianBlur and Core Image's CIGaussianBlur).
public struct BlurFilter: Filter {
    public let sigma: Float

    public init(sigma: Float) { self.sigma = sigma }

    public var name: String { "blur=\(FilterValue.format(sigma))" }

    public func makeStage() throws -> RenderStage { BlurStage(sigma: sigma) }

    static let range: ClosedRange<Float> = 0.1...250

    static let kind = FilterKind(name: "blur", usage: "blur=SIGMA", summary: "Gaussian blur, SIGMA pixels of standard deviation (0.1...250; after CIGaussianBlur)") { value, _ in
        BlurFilter(sigma: try FilterValue.number(value, filter: "blur", range: range, meaning: "the standard deviation in pixels"))
    }
}

/// A separable Gaussian: a horizontal pass and a vertical one, each fetch
/// between two texels weighing both. A wide blur first halves the picture
/// (each halving a 2x2 mean, from the bilinear filter) until the kernel left
/// is under 2.5 texels of deviation, blurs there, and hands on the reduced
/// texture: the next draw samples it back up, bilinearly. The kernel at the
/// reduced size is chosen so that the variances of the halvings, the blur
/// and the bilinear resampling add up to the one asked for. The halvings
/// reach a margin past the picture's edges, filled by the clamped edge
/// pixels at full size, so that a blur at reduced size clamps at the edges as
/// the full-size one does.
final class BlurStage: RenderStage {
    let sigma: Float
    private var halves: [Framebuffer?] = []
    private var horizontal: Framebuffer?
    private var vertical: Framebuffer?
    private var scratch: Framebuffer?
    private var programs: [Int: BlurProgram] = [:]
    /// The plan and kernel for the last picture size, worked out once per size.
    private var layout: Layout?
    private(set) var passes = 0

    init(sigma: Float) {
        self.sigma = sigma
    }

    /// How a picture of one size is blurred.
    struct Layout: Equatable {
        var width: Int
        var height: Int
        /// Halvings before the blur, and the margin they keep past each edge, in pixels.
        var halvings = 0
        var margin = 0
        /// The center's weight, then each fetch's weight and offset in texels.
        var weights: [Float] = []
        var offsets: [Float] = []

        /// Texels of the picture and its margins after `level` halvings.
        func size(level: Int) -> (width: Int, height: Int) {
            let scale = 1 << level
            return ((width + 2 * margin + scale - 1) / scale, (height + 2 * margin + scale - 1) / scale)
        }

        /// Where the picture lies in the texture of `level` (texels of the margins around it).
        func pictureRegion(level: Int) -> TextureRegion {
            let (w, h) = size(level: level), scale = Float(1 << level)
            return TextureRegion(x: Float(margin) / (scale * Float(w)), y: Float(margin) / (scale * Float(h)),
                                 width: Float(width) / (scale * Float(w)), height: Float(height) / (scale * Float(h)))
        }
    }

    /// The number of halvings and the deviation left to blur at that size, in its texels.
    static func plan(sigma: Float, width: Int, height: Int) -> (halvings: Int, sigma: Float) {
        var halvings = 0
        while sigma >= 2.5 * Float(1 << halvings), min(width, height) >> (halvings + 1) >= 2 { halvings += 1 }
        guard halvings > 0 else { return (0, sigma) }
        let scale = Float(1 << halvings)
        // A 2x2 mean at level j adds a variance of 4^j / 4; bilinear resampling from level k about 4^k / 6.
        let added = (0..<halvings).reduce(Float(0)) { $0 + Float(1 << (2 * $1)) / 4 } + scale * scale / 6
        return (halvings, max(0.3, ((sigma * sigma - added) / (scale * scale)).squareRoot()))
    }

    static func layout(sigma: Float, width: Int, height: Int) -> Layout {
        let (halvings, working) = plan(sigma: sigma, width: width, height: height)
        let (weights, offsets) = kernel(sigma: working)
        // The kernel's reach and a texel for the resampling, in whole texels of the last level.
        let margin = halvings == 0 ? 0 : (Int((3 * working).rounded(.up)) + 2) << halvings
        return Layout(width: width, height: height, halvings: halvings, margin: margin, weights: weights, offsets: offsets)
    }

    /// The center's weight, then each fetch's weight and offset (in texels):
    /// the Gaussian sampled at whole texels out to 3 deviations, normalized,
    /// and neighbouring taps paired into one bilinear fetch.
    static func kernel(sigma: Float) -> (weights: [Float], offsets: [Float]) {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var taps = (0...radius).map { i in exp(-Float(i * i) / (2 * sigma * sigma)) }
        let total = taps[0] + 2 * taps[1...].reduce(0, +)
        taps = taps.map { $0 / total }
        var weights = [taps[0]], offsets: [Float] = [0]
        var i = 1
        while i <= radius {
            let a = taps[i], b = i + 1 <= radius ? taps[i + 1] : 0
            weights.append(a + b)
            offsets.append((Float(i) * a + Float(i + 1) * b) / (a + b))
            i += 2
        }
        return (weights, offsets)
    }

    func render(_ input: TextureView, _ frame: StageFrame) throws -> TextureView {
        let (width, height) = (input.pixelWidth, input.pixelHeight)
        if layout?.width != width || layout?.height != height { layout = Self.layout(sigma: sigma, width: width, height: height) }
        let layout = layout!
        passes = 0
        var current = try frame.copier.whole(input, scratch: &scratch)
        if current.name != input.name { passes += 1 }
        while halves.count < layout.halvings { halves.append(nil) }
        for level in stride(from: 1, through: layout.halvings, by: 1) {
            // The source coordinates this level's texture covers: the picture and
            // its margins, past the first level's edges (clamped there).
            let (w, h) = layout.size(level: level)
            let covered: TextureRegion
            if level == 1 {
                let m = Float(layout.margin), span = (Float(2 * w), Float(2 * h))
                covered = TextureRegion(x: -m / Float(width), y: -m / Float(height), width: span.0 / Float(width), height: span.1 / Float(height))
            } else {
                let below = layout.size(level: level - 1)
                covered = TextureRegion(x: 0, y: 0, width: Float(2 * w) / Float(below.width), height: Float(2 * h) / Float(below.height))
            }
            let target = try Framebuffer.reused(&halves[level - 1], width: w, height: h)
            frame.copier.copy(current, region: covered, into: target)
            current = target.asTexture
            passes += 1
        }
        let program = try programs[layout.weights.count - 1] ?? BlurProgram(taps: layout.weights.count - 1)
        programs[layout.weights.count - 1] = program
        let across = try Framebuffer.reused(&horizontal, width: current.width, height: current.height)
        program.draw(current, step: SIMD2(1 / Float(current.width), 0), weights: layout.weights, offsets: layout.offsets, into: across,
                     quad: frame.copier.quad)
        let down = try Framebuffer.reused(&vertical, width: current.width, height: current.height)
        program.draw(across.asTexture, step: SIMD2(0, 1 / Float(current.height)), weights: layout.weights, offsets: layout.offsets, into: down,
                     quad: frame.copier.quad)
        passes += 2
        return TextureView(name: down.texture, width: down.width, height: down.height, region: layout.pictureRegion(level: layout.halvings),
                             imageSize: (width, height))
    }
}
/// `blur.frag` compiled for one number of fetches a side.
private final class BlurProgram {
    let program: ShaderProgram
    private let step: GLint
    private let weights: GLint
    private let offsets: GLint

    init(taps: Int) throws {
        let source = ShaderSource.text(PackageResources.blur_frag)
        program = try ShaderProgram(quadFragment: source, name: "blur.frag", defines: "#define TAPS \(taps)\n")
        step = program.location("u_step")
        weights = program.location("u_weights")
        offsets = program.location("u_offsets")
    }

    func draw(_ texture: TextureView, step direction: SIMD2<Float>, weights w: [Float], offsets o: [Float], into target: Framebuffer, quad: Quad) {
        target.bind()
        program.use()
        glUniform2f(step, direction.x, direction.y)
        w.withUnsafeBufferPointer { glUniform1fv(weights, GLsizei(w.count), $0.baseAddress) }
        o.withUnsafeBufferPointer { glUniform1fv(offsets, GLsizei(o.count), $0.baseAddress) }
        GL.bindTexture(texture.name)
        quad.draw(Quad.vertices(filling: texture.region))
    }
}
