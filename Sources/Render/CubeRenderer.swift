import CGLES
import Foundation
import Filters
import GPU
import Shaders

/// The CubeKamera view: a cube spinning in perspective, each face showing the
/// frame. The angles depend only on the frame index and the frame rate, so a
/// given frame always renders the same.
public final class CubeRenderer: LayoutStage {
    /// Frames per second used to turn a frame index into time.
    public var rate: Double
    /// Background color (RGBA, 0...1).
    public var background = SIMD4<Float>(0.2, 0.2, 0.2, 1)
    private let filtered: FaceProgram
    /// Without a color matrix, a plain texture draw: llvmpipe runs such a
    /// shader on its fast fixed-point path, at about half the cost.
    private let plain: FaceProgram
    private let vertices: GLuint
    private let colorMatrix: ColorMatrixUniforms

    /// A program drawing the faces, and the locations of its uniforms.
    private struct FaceProgram {
        let program: ShaderProgram
        let mvp: GLint
        let region: GLint

        init(fragment: String, name: String) throws {
            program = try ShaderProgram(vertex: ShaderSource.cubeVertex, fragment: fragment, vertexName: "cube.vert", fragmentName: name)
            mvp = program.location("u_mvp")
            region = program.location("u_region")
        }
    }

    public init(rate: Double = 30) throws {
        self.rate = rate
        filtered = try FaceProgram(fragment: ShaderSource.colorMatrix, name: "color_matrix.frag")
        plain = try FaceProgram(fragment: ShaderSource.texture, name: "texture.frag")
        colorMatrix = ColorMatrixUniforms(filtered.program)
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

    /// The length in pixels of a face's edge seen head-on at the cube's
    /// distance, on an output `height` pixels high (the field of view is vertical).
    public static func faceEdge(outputHeight height: Int) -> Float {
        let distance = Self.eyeDistance - 1  // the eye to the near face
        return 2 / (distance * Self.tanHalfFieldOfView) * Float(height) / 2
    }

    /// From the eye to the cube's center, in half edges.
    private static let eyeDistance: Float = 6
    private static let fieldOfView: Float = 45
    private static let tanHalfFieldOfView = Float(tan(Double(fieldOfView) / 2 * .pi / 180))

    /// The model-view-projection matrix for `frame` on an output of the given
    /// aspect ratio; `clipYScale` -1 puts the image's top at GL's row 0 (see `RenderTarget`).
    public func transform(frame: Int, aspect: Float, clipYScale: Float = -1) -> Mat4 {
        let a = angles(frame: frame)
        let model = Mat4.rotation(degrees: a.x, axis: SIMD3(1, 0, 0)) * Mat4.rotation(degrees: a.y, axis: SIMD3(0, 1, 0))
            * Mat4.rotation(degrees: a.z, axis: SIMD3(0, 0, 1))
        let view = Mat4.translation(0, 0, -Self.eyeDistance)
        let projection = Mat4.scale(1, clipYScale, 1) * Mat4.perspective(fovyDegrees: Self.fieldOfView, aspect: aspect, near: 1, far: 20)
        return projection * view * model
    }

    public func draw(_ picture: TextureView, matrix: ColorMatrix, into target: RenderTarget, _ frame: StageFrame) {
        render(picture, into: target, frame: frame.index, matrix: matrix)
    }

    /// A face's edge seen head-on over the picture's longer side.
    public func magnification(width: Int, height: Int, outputWidth: Int, outputHeight: Int) -> Float {
        Self.faceEdge(outputHeight: outputHeight) / Float(max(width, height))
    }

    /// Renders the cube at `frame` into `target`, its faces showing `texture`
    /// through `matrix`. The cube is convex, so culling its back faces hides
    /// all that a depth test would: no depth buffer to clear and test.
    public func render(_ texture: TextureView, into target: RenderTarget, frame: Int, matrix: ColorMatrix = .identity) {
        target.bind()
        glClearColor(background.x, background.y, background.z, background.w)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        glEnable(GLenum(GL_CULL_FACE))
        glCullFace(GLenum(GL_BACK))
        // Faces wind counterclockwise seen from outside; a flip in y reverses that.
        glFrontFace(GLenum(target.topRowFirst ? GL_CW : GL_CCW))
        let faces = matrix == .identity ? plain : filtered
        faces.program.use()
        if matrix != .identity { colorMatrix.set(matrix) }
        GL.bindTexture(texture.name)
        transform(frame: frame, aspect: Float(target.width) / Float(target.height), clipYScale: target.clipYScale).withFloats {
            glUniformMatrix4fv(faces.mvp, 1, GLboolean(GL_FALSE), $0)
        }
        let r = texture.region
        glUniform4f(faces.region, r.x, r.y, r.width, r.height)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), vertices)
        glEnableVertexAttribArray(ShaderProgram.positionAttribute)
        glEnableVertexAttribArray(ShaderProgram.texcoordAttribute)
        glVertexAttribPointer(ShaderProgram.positionAttribute, 3, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 20, nil)
        glVertexAttribPointer(ShaderProgram.texcoordAttribute, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 20,
                              UnsafeRawPointer(bitPattern: 12))
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 36)
        glDisable(GLenum(GL_CULL_FACE))
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
