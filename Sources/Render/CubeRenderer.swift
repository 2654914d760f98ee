import CGLES
import Filters
import GPU
import Shaders

/// The CubeKamera view: a cube spinning in perspective, each face showing the
/// frame. The angles depend only on the frame index and the frame rate, so a
/// given frame always renders the same.
public final class CubeRenderer {
    /// Frames per second used to turn a frame index into time.
    public var rate: Double
    /// Background color (RGBA, 0...1).
    public var background = SIMD4<Float>(0.2, 0.2, 0.2, 1)
    private let program: ShaderProgram
    private let vertices: GLuint
    private let mvp: GLint
    private let region: GLint
    private let colorMatrix: ColorMatrixUniforms

    public init(rate: Double = 30) throws {
        self.rate = rate
        program = try ShaderProgram(vertex: ShaderSource.cubeVertex, fragment: ShaderSource.colorMatrix,
                                    vertexName: "cube.vert", fragmentName: "color_matrix.frag")
        colorMatrix = ColorMatrixUniforms(program)
        mvp = program.location("u_mvp")
        region = program.location("u_region")
        var buffer: GLuint = 0
        glGenBuffers(1, &buffer)
        vertices = buffer
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), buffer)
        let data = Self.mesh()
        data.withUnsafeBytes { glBufferData(GLenum(GL_ARRAY_BUFFER), $0.count, $0.baseAddress, GLenum(GL_STATIC_DRAW)) }
    }

    deinit {
        var b = vertices
        glDeleteBuffers(1, &b)
    }

    /// Rotation angles in degrees about x, y and z at `frame` (15, -30 and 9 degrees a second, from 45, 45, 10).
    public func angles(frame: Int) -> SIMD3<Float> {
        let t = Float(Double(frame) / rate)
        return SIMD3(45 + 15 * t, 45 - 30 * t, 10 + 9 * t)
    }

    /// The model-view-projection matrix for `frame` on an output of the given aspect ratio.
    public func transform(frame: Int, aspect: Float) -> Mat4 {
        let a = angles(frame: frame)
        let model = Mat4.rotation(degrees: a.x, axis: SIMD3(1, 0, 0)) * Mat4.rotation(degrees: a.y, axis: SIMD3(0, 1, 0))
            * Mat4.rotation(degrees: a.z, axis: SIMD3(0, 0, 1))
        let view = Mat4.translation(0, 0, -6)
        // y is flipped so that the image's top row comes first when read back (see Framebuffer.readPixels).
        let projection = Mat4.scale(1, -1, 1) * Mat4.perspective(fovyDegrees: 45, aspect: aspect, near: 1, far: 20)
        return projection * view * model
    }

    /// Renders the cube at `frame` into `target`, its faces showing `texture`
    /// through `matrix`.
    public func render(_ texture: CameraTexture, into target: Framebuffer, frame: Int, matrix: ColorMatrix = .identity) {
        target.bind()
        glClearColor(background.x, background.y, background.z, background.w)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT))
        glEnable(GLenum(GL_DEPTH_TEST))
        program.use()
        colorMatrix.set(matrix)
        GL.bindTexture(texture.name)
        transform(frame: frame, aspect: Float(target.width) / Float(target.height)).withFloats {
            glUniformMatrix4fv(mvp, 1, GLboolean(GL_FALSE), $0)
        }
        let r = texture.region
        glUniform4f(region, r.x, r.y, r.width, r.height)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), vertices)
        glEnableVertexAttribArray(ShaderProgram.positionAttribute)
        glEnableVertexAttribArray(ShaderProgram.texcoordAttribute)
        glVertexAttribPointer(ShaderProgram.positionAttribute, 3, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 20, nil)
        glVertexAttribPointer(ShaderProgram.texcoordAttribute, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 20,
                              UnsafeRawPointer(bitPattern: 12))
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 36)
        glDisable(GLenum(GL_DEPTH_TEST))
    }

    /// Six faces, two triangles each: x, y, z, u, v per vertex; v = 0 is the image's
    /// top edge, placed at the face's upper edge as seen from outside.
    private static func mesh() -> [Float] {
        // Each face: bottom-left, bottom-right, top-left, top-right corners seen from outside.
        let faces: [[SIMD3<Float>]] = [
            [SIMD3(-1, -1, 1), SIMD3(1, -1, 1), SIMD3(-1, 1, 1), SIMD3(1, 1, 1)],        // front
            [SIMD3(1, -1, -1), SIMD3(-1, -1, -1), SIMD3(1, 1, -1), SIMD3(-1, 1, -1)],    // back
            [SIMD3(1, -1, 1), SIMD3(1, -1, -1), SIMD3(1, 1, 1), SIMD3(1, 1, -1)],        // right
            [SIMD3(-1, -1, -1), SIMD3(-1, -1, 1), SIMD3(-1, 1, -1), SIMD3(-1, 1, 1)],    // left
            [SIMD3(-1, 1, 1), SIMD3(1, 1, 1), SIMD3(-1, 1, -1), SIMD3(1, 1, -1)],        // top
            [SIMD3(-1, -1, -1), SIMD3(1, -1, -1), SIMD3(-1, -1, 1), SIMD3(1, -1, 1)],    // bottom
        ]
        let uv: [SIMD2<Float>] = [SIMD2(0, 1), SIMD2(1, 1), SIMD2(0, 0), SIMD2(1, 0)]
        var data: [Float] = []
        for face in faces {
            for i in [0, 1, 2, 2, 1, 3] {
                data += [face[i].x, face[i].y, face[i].z, uv[i].x, uv[i].y]
            }
        }
        return data
    }
}
