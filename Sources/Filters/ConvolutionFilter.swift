import CGLES
import GPU
import Shaders

/// A 3x3 or 5x5 convolution of R, G and B (GPUImage's 3x3 convolution,
/// ffmpeg's convolution filter): each pixel the sum of its neighbours times
/// the kernel, divided by the divisor; edges clamp.
public struct ConvolutionFilter: Filter {
    /// Row by row, top row first: 9 or 25 values.
    public let kernel: [Float]
    public let divisor: Float

    public init(kernel: [Float], divisor: Float? = nil) {
        self.kernel = kernel
        let sum = kernel.reduce(0, +)
        self.divisor = divisor ?? (sum == 0 ? 1 : sum)
    }

    /// 3 or 5.
    public var size: Int { kernel.count == 25 ? 5 : 3 }

    public var name: String { "convolve=" + (kernel + [divisor]).map(FilterValue.format).joined(separator: ",") }

    public func makeStage() throws -> RenderStage { try ConvolutionStage(self) }

    static let kind = FilterKind(name: "convolve", usage: "convolve=K1,...,K9[,D]",
                                 summary: "3x3 (9 values) or 5x5 (25) convolution, rows top first, divided by D (default: the kernel's sum, or 1 when it is 0)") { value, _ in
        let numbers = try FilterValue.numbers(value ?? "", filter: "convolve", expected: "9 or 25 comma-separated numbers (a 3x3 or 5x5 kernel, rows top first), then an optional divisor")
        guard [9, 10, 25, 26].contains(numbers.count) else {
            throw FilterError("convolve: got \(numbers.count) numbers; give 9 (3x3) or 25 (5x5), then an optional divisor, e.g. convolve=0,-1,0,-1,5,-1,0,-1,0")
        }
        guard numbers.allSatisfy({ abs($0) <= 1e6 }) else { throw FilterError("convolve: every number must be within ±1000000") }
        let size = numbers.count >= 25 ? 25 : 9
        let divisor = numbers.count > size ? numbers[size] : nil
        if divisor == 0 { throw FilterError("convolve: the divisor is 0; give a number other than 0, or leave it out") }
        return ConvolutionFilter(kernel: Array(numbers.prefix(size)), divisor: divisor)
    }
}

final class ConvolutionStage: RenderStage {
    private let program: ShaderProgram
    private let texel: GLint
    private var scratch: Framebuffer?
    private var output: Framebuffer?
    private(set) var passes = 1

    init(_ filter: ConvolutionFilter) throws {
        let source = ShaderSource.text(PackageResources.convolve_frag)
        program = try ShaderProgram(quadFragment: source, name: "convolve.frag", defines: "#define SIZE \(filter.size)\n")
        program.use()
        texel = program.location("u_texel")
        let scaled = filter.kernel.map { $0 / filter.divisor }
        scaled.withUnsafeBufferPointer { glUniform1fv(program.location("u_kernel"), GLsizei(scaled.count), $0.baseAddress) }
    }

    func render(_ input: TextureView, _ frame: StageFrame) throws -> TextureView {
        let picture = try frame.copier.whole(input, scratch: &scratch)
        passes = picture.name == input.name ? 1 : 2
        let target = try Framebuffer.reused(&output, width: picture.width, height: picture.height)
        target.bind()
        program.use()
        glUniform2f(texel, 1 / Float(picture.width), 1 / Float(picture.height))
        GL.bindTexture(picture.name)
        frame.copier.quad.draw(Quad.vertices(filling: .full))
        return target.asTexture
    }
}
