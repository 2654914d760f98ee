import CGLES
import GPU
import Shaders

/// Draws boxes, lines and text over a render target, in its pixels (top row
/// 0): what overlays are made of. One program for solid shapes and text
/// (blended over the picture), the console font's glyphs in one texture made
/// on first use, and a vertex buffer grown when needed and reused. Call it on
/// the thread that owns the context, between `begin` and `end`.
public final class OverlayPainter {
    private let program: ShaderProgram
    private let color: GLint
    private let textured: GLint
    private var buffer: GLuint = 0
    private var capacity = 0
    /// x, y (clip space), u, v per vertex; triangles.
    private var vertices: [Float] = []
    public let font: ConsoleFont?
    private var atlas: (texture: GLuint, columns: Int, width: Int, height: Int)?
    private var size = (width: 1.0, height: 1.0)
    private var yScale: Double = 1

    public init(font: ConsoleFont?) throws {
        self.font = font
        program = try ShaderProgram(quadFragment: ShaderSource.overlay, name: "overlay.frag")
        color = program.location("u_color")
        textured = program.location("u_textured")
        var b: GLuint = 0
        glGenBuffers(1, &b)
        buffer = b
        vertices.reserveCapacity(6 * 4 * 64)
    }

    deinit {
        glDeleteBuffers(1, &buffer)
        if var texture = atlas?.texture { glDeleteTextures(1, &texture) }
    }

    public func begin(on target: RenderTarget) {
        target.bind()
        size = (Double(target.width), Double(target.height))
        yScale = Double(target.clipYScale)
        program.use()
        glEnable(GLenum(GL_BLEND))
        // Blend the color; keep the picture's alpha.
        glBlendFuncSeparate(GLenum(GL_SRC_ALPHA), GLenum(GL_ONE_MINUS_SRC_ALPHA), GLenum(GL_ZERO), GLenum(GL_ONE))
    }

    public func end() {
        glDisable(GLenum(GL_BLEND))
    }

    /// A line `width` pixels thick.
    public func line(from a: (x: Double, y: Double), to b: (x: Double, y: Double), width: Double, color c: SIMD4<Float>) {
        let dx = b.x - a.x, dy = b.y - a.y, length = (dx * dx + dy * dy).squareRoot()
        guard length > 0 else { return }
        // Half the width across the line, and half of it along, so that corners close.
        let nx = -dy / length * width / 2, ny = dx / length * width / 2
        let ex = dx / length * width / 2, ey = dy / length * width / 2
        quad([(a.x - ex + nx, a.y - ey + ny), (b.x + ex + nx, b.y + ey + ny), (a.x - ex - nx, a.y - ey - ny), (b.x + ex - nx, b.y + ey - ny)],
             uv: nil, color: c)
    }

    /// The outline through `points`, closed.
    public func polygon(_ points: [(x: Double, y: Double)], width: Double, color: SIMD4<Float>) {
        for i in points.indices { line(from: points[i], to: points[(i + 1) % points.count], width: width, color: color) }
    }

    public func fill(x: Double, y: Double, width: Double, height: Double, color c: SIMD4<Float>) {
        quad([(x, y), (x + width, y), (x, y + height), (x + width, y + height)], uv: nil, color: c)
    }

    /// The size of `text` drawn at `scale` (whole glyph cells).
    public func textSize(_ text: String, scale: Int) -> (width: Double, height: Double) {
        guard let font else { return (0, 0) }
        return (Double(text.unicodeScalars.count * font.width * scale), Double(font.height * scale))
    }

    /// `text` with its top left corner at (`x`, `y`), each glyph pixel `scale` pixels.
    public func text(_ text: String, x: Double, y: Double, scale: Int, color c: SIMD4<Float>) {
        guard let font, let atlas = makeAtlas(font) else { return }
        let (w, h) = (Double(font.width * scale), Double(font.height * scale))
        var left = x
        vertices.removeAll(keepingCapacity: true)
        for scalar in text.unicodeScalars {
            let g = font.glyph(for: scalar)
            let u0 = Double(g % atlas.columns * font.width) / Double(atlas.width), v0 = Double(g / atlas.columns * font.height) / Double(atlas.height)
            let u1 = u0 + Double(font.width) / Double(atlas.width), v1 = v0 + Double(font.height) / Double(atlas.height)
            append([(left, y), (left + w, y), (left, y + h), (left + w, y + h)], uv: [(u0, v0), (u1, v0), (u0, v1), (u1, v1)])
            left += w
        }
        GL.bindTexture(atlas.texture)
        flush(color: c, textured: true)
    }

    private func quad(_ corners: [(Double, Double)], uv: [(Double, Double)]?, color c: SIMD4<Float>) {
        vertices.removeAll(keepingCapacity: true)
        append(corners, uv: uv)
        flush(color: c, textured: false)
    }

    /// Two triangles for the corners top left, top right, bottom left, bottom right.
    private func append(_ corners: [(Double, Double)], uv: [(Double, Double)]?) {
        for i in [0, 1, 2, 2, 1, 3] {
            let (x, y) = corners[i]
            vertices.append(Float(2 * x / size.width - 1))
            vertices.append(Float((1 - 2 * y / size.height) * yScale))
            vertices.append(Float(uv?[i].0 ?? 0))
            vertices.append(Float(uv?[i].1 ?? 0))
        }
    }

    private func flush(color c: SIMD4<Float>, textured isText: Bool) {
        guard !vertices.isEmpty else { return }
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), buffer)
        let bytes = vertices.count * 4
        vertices.withUnsafeBytes { raw in
            if bytes > capacity {
                capacity = max(bytes, 2 * capacity)
                glBufferData(GLenum(GL_ARRAY_BUFFER), capacity, nil, GLenum(GL_DYNAMIC_DRAW))
            }
            glBufferSubData(GLenum(GL_ARRAY_BUFFER), 0, bytes, raw.baseAddress)
        }
        glUniform4f(color, c.x, c.y, c.z, c.w)
        glUniform1f(textured, isText ? 1 : 0)
        let position = ShaderProgram.positionAttribute, texcoord = ShaderProgram.texcoordAttribute
        glEnableVertexAttribArray(position)
        glEnableVertexAttribArray(texcoord)
        glVertexAttribPointer(position, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 16, nil)
        glVertexAttribPointer(texcoord, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 16, UnsafeRawPointer(bitPattern: 8))
        glDrawArrays(GLenum(GL_TRIANGLES), 0, GLsizei(vertices.count / 4))
    }

    /// The glyphs in a texture, 32 to a row, made once.
    private func makeAtlas(_ font: ConsoleFont) -> (texture: GLuint, columns: Int, width: Int, height: Int)? {
        if let atlas { return atlas }
        let columns = 32, rows = (font.count + columns - 1) / columns
        let (width, height) = (columns * font.width, rows * font.height)
        var pixels = [UInt8](repeating: 0, count: width * height)
        for g in 0..<font.count {
            for y in 0..<font.height {
                let from = (g * font.height + y) * font.width
                let to = (g / columns * font.height + y) * width + g % columns * font.width
                pixels.replaceSubrange(to..<(to + font.width), with: font.glyphs[from..<(from + font.width)])
            }
        }
        let texture = GL.makeTexture(filter: GL_NEAREST)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(GL_LUMINANCE), GLsizei(width), GLsizei(height), 0, GLenum(GL_LUMINANCE), GLenum(GL_UNSIGNED_BYTE), pixels)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        atlas = (texture, columns, width, height)
        return atlas
    }
}
