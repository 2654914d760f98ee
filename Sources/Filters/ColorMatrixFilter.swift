import CGLES
import GPU
import Shaders

/// A color matrix: a preset (sepia, mono...), an adjustment (contrast=1.3)
/// or a custom `matrix=...`, mixed with its input by the intensity.
public struct ColorMatrixFilter: Filter {
    public let name: String
    public let matrix: ColorMatrix

    public init(name: String, matrix: ColorMatrix) {
        self.name = name
        self.matrix = matrix
    }

    public var colorMatrix: ColorMatrix? { matrix }

    public func makeStage() throws -> RenderStage { try ColorMatrixStage(matrix) }

    /// The presets, the adjustments and `matrix=`.
    static var kinds: [FilterKind] {
        let presets = FilterPresets.presets.map { preset in
            FilterKind(name: preset.name, usage: preset.name, summary: preset.summary) { _, intensity in
                ColorMatrixFilter(name: preset.name, matrix: preset.matrix.mixed(intensity: intensity))
            }
        }
        let adjustments = FilterPresets.adjustments.map { adjustment in
            FilterKind(name: adjustment.name, usage: "\(adjustment.name)=V",
                       summary: "\(adjustment.summary) (\(adjustment.range.lowerBound)...\(adjustment.range.upperBound))") { value, intensity in
                let v = try FilterValue.number(value, filter: adjustment.name, range: adjustment.range, meaning: "the value (\(adjustment.summary))")
                return ColorMatrixFilter(name: "\(adjustment.name)=\(value ?? "")", matrix: adjustment.make(v).mixed(intensity: intensity))
            }
        }
        let custom = FilterKind(name: "matrix", usage: "matrix=N,...",
                                summary: "custom matrix: 9 (3x3), 12 (3x4, offset last in each row), 16 (4x4) or 20 (4x5) row-major numbers, or a JSON file") { value, intensity in
            ColorMatrixFilter(name: "matrix", matrix: try ColorMatrix(parsing: value ?? "").mixed(intensity: intensity))
        }
        return presets + adjustments + [custom]
    }
}

/// Draws a color matrix over every pixel, clamped to 0...1.
final class ColorMatrixStage: RenderStage {
    private let program: ShaderProgram
    private let uniforms: ColorMatrixUniforms
    private let matrix: ColorMatrix
    private var output: Framebuffer?

    init(_ matrix: ColorMatrix) throws {
        self.matrix = matrix
        program = try ShaderProgram(quadFragment: ShaderSource.colorMatrix, name: "color_matrix.frag")
        uniforms = ColorMatrixUniforms(program)
    }

    var passes: Int { 1 }

    func render(_ input: TextureView, _ frame: StageFrame) throws -> TextureView {
        let target = try Framebuffer.reused(&output, width: input.pixelWidth, height: input.pixelHeight)
        target.bind()
        program.use()
        uniforms.set(matrix)
        GL.bindTexture(input.name)
        frame.copier.quad.draw(Quad.vertices(filling: input.region))
        return target.asTexture
    }
}
