import CGLES
import GPU
import Messages
import Shaders

/// A user's fragment shader compiled in its convention, drawn on a quad with
/// its standard uniforms, channels and `--uniform` values set each frame.
/// Errors point at the user's file and line, includes and prolog accounted for.
public final class ShaderPass {
    public let shader: PreparedShader
    public let program: ShaderProgram
    /// The active uniforms: name (arrays without `[0]`), GLSL type, location, array size.
    public private(set) var uniforms: [ActiveUniform] = []
    private var user: [(ActiveUniform, [Double])] = []
    private var locations: [String: ActiveUniform] = [:]

    public struct ActiveUniform: Equatable {
        public var name: String
        public var type: GLenum
        public var location: GLint
        public var size: Int
        /// The GLSL type name, e.g. `vec3`.
        public var typeName: String { Self.names[type] ?? "type 0x\(String(type, radix: 16))" }

        static let names: [GLenum: String] = [
            GLenum(GL_FLOAT): "float", GLenum(GL_FLOAT_VEC2): "vec2", GLenum(GL_FLOAT_VEC3): "vec3", GLenum(GL_FLOAT_VEC4): "vec4",
            GLenum(GL_INT): "int", GLenum(GL_INT_VEC2): "ivec2", GLenum(GL_INT_VEC3): "ivec3", GLenum(GL_INT_VEC4): "ivec4",
            GLenum(GL_BOOL): "bool", GLenum(GL_BOOL_VEC2): "bvec2", GLenum(GL_BOOL_VEC3): "bvec3", GLenum(GL_BOOL_VEC4): "bvec4",
            GLenum(GL_FLOAT_MAT2): "mat2", GLenum(GL_FLOAT_MAT3): "mat3", GLenum(GL_FLOAT_MAT4): "mat4",
            GLenum(GL_SAMPLER_2D): "sampler2D", GLenum(GL_SAMPLER_CUBE): "samplerCube",
        ]
    }

    public init(_ shader: PreparedShader, uniforms values: [ShaderUniformValue] = []) throws {
        self.shader = shader
        let vertex = shader.version == 300 ? ShaderSource.quadVertex300 : ShaderSource.quadVertex
        try ShaderCompileGuard.check?(vertex, shader.text, shader.name)
        do {
            program = try ShaderProgram(vertex: vertex, fragment: shader.text, vertexName: shader.version == 300 ? "quad300.vert" : "quad.vert",
                                        fragmentName: shader.name, fragmentPlace: { [shader] in shader.place(ofLine: $0) })
        } catch let error as GPUError {
            throw ShaderCompileError(description: error.description)
        }
        uniforms = Self.activeUniforms(program.id)
        for u in uniforms { locations[u.name] = u }
        user = try values.map { value in
            guard let u = locations[value.name] else {
                let names = uniforms.map(\.name).joined(separator: ", ")
                throw FilterError("\(Setting.uniform) \(value.name)=\(value.text): \(shader.name) has no active uniform \(value.name) (active: \(names.isEmpty ? "none" : names); the compiler drops uniforms the shader never reads)")
            }
            guard u.size == 1 else {
                throw FilterError(.uniform, "\(value.name)", because: "\(value.name) is an array (\(u.typeName)[\(u.size)])", "arrays cannot be set from the command line")
            }
            let count: Int
            switch Int32(u.type) {
            case GL_FLOAT, GL_INT, GL_BOOL: count = 1
            case GL_FLOAT_VEC2, GL_INT_VEC2, GL_BOOL_VEC2: count = 2
            case GL_FLOAT_VEC3, GL_INT_VEC3, GL_BOOL_VEC3: count = 3
            case GL_FLOAT_VEC4, GL_INT_VEC4, GL_BOOL_VEC4: count = 4
            default: throw FilterError(.uniform, "\(value.name)", because: "a \(u.typeName) cannot be set from the command line", "float, vec2-4, int, ivec2-4 and bool can")
            }
            guard value.numbers.count == count else {
                let example = (0..<count).map { ["1", "0.5", "0", "1"][$0] }.joined(separator: ",")
                throw FilterError("\(Setting.uniform) \(value.name)=\(value.text): \(value.name) is a \(u.typeName); give \(count) value\(count == 1 ? "" : "s"), e.g. \(value.name)=\(example)")
            }
            if [GL_INT, GL_INT_VEC2, GL_INT_VEC3, GL_INT_VEC4].contains(Int32(u.type)),
               value.numbers.contains(where: { $0 != $0.rounded() || abs($0) > 2_147_483_647 }) {
                throw FilterError(.uniform, "\(value.name)=\(value.text)", because: "\(value.name) is a \(u.typeName)", "give whole numbers from -2147483647 to 2147483647")
            }
            return (u, value.numbers)
        }
    }

    /// Sets the uniforms and textures for `inputs` and draws into the bound
    /// target. Kamera's convention samples channel 0's region; the others
    /// get whole textures and GL's bottom-up coordinates.
    public func draw(_ inputs: ShaderInputs, quad: Quad) {
        program.use()
        let bottomUp = shader.convention.isBottomUp
        for (index, texture) in inputs.channels.enumerated() {
            guard let texture else { continue }
            GL.bindTexture(texture.name, unit: Int32(index))
            for name in ["iChannel\(index)", "u_tex\(index)"] + (index == 0 ? ["u_texture"] : []) {
                if let u = locations[name] { glUniform1i(u.location, GLint(index)) }
            }
            let (w, h) = (Float(texture.pixelWidth), Float(texture.pixelHeight))
            if let u = locations["iChannelResolution"] { glUniform3f(u.location + GLint(index), w, h, 1) }
            if let u = locations["u_tex\(index)Resolution"] { glUniform2f(u.location, w, h) }
            if let u = locations["iChannelTime"] { glUniform1f(u.location + GLint(index), Float(inputs.time)) }
        }
        var unit: Int32 = 4
        for (name, texture) in inputs.samplers.sorted(by: { $0.key < $1.key }) {
            guard let u = locations[name] else { continue }
            GL.bindTexture(texture.name, unit: unit)
            glUniform1i(u.location, unit)
            unit += 1
        }
        glActiveTexture(GLenum(GL_TEXTURE0))
        let (w, h) = (Float(inputs.width), Float(inputs.height))
        set("iResolution", [Double(w), Double(h), 1])
        set("u_resolution", [Double(w), Double(h)])
        for name in ["iTime", "u_time"] { set(name, [inputs.time]) }
        for name in ["iTimeDelta", "u_delta"] { set(name, [inputs.delta]) }
        for name in ["iFrame", "u_frame"] { set(name, [Double(inputs.frame)]) }
        set("iFrameRate", [inputs.frameRate])
        let m = inputs.mouse, d = inputs.date
        set("iMouse", [Double(m.x), Double(m.y), Double(m.z), Double(m.w)])
        set("u_mouse", [Double(m.x), Double(m.y)])
        for name in ["iDate", "u_date"] { set(name, [Double(d.x), Double(d.y), Double(d.z), Double(d.w)]) }
        for (u, values) in user { set(u, values) }
        let region = bottomUp ? TextureRegion.full : (inputs.channels[0]?.region ?? .full)
        quad.draw(Quad.vertices(filling: region))
    }

    private func set(_ name: String, _ values: [Double]) {
        if let u = locations[name] { set(u, values) }
    }

    /// Sets a uniform of any numeric type from up to four values.
    private func set(_ u: ActiveUniform, _ v: [Double]) {
        func f(_ i: Int) -> Float { i < v.count ? Float(v[i]) : 0 }
        func n(_ i: Int) -> GLint { i < v.count ? GLint(v[i].rounded()) : 0 }
        switch Int32(u.type) {
        case GL_FLOAT: glUniform1f(u.location, f(0))
        case GL_FLOAT_VEC2: glUniform2f(u.location, f(0), f(1))
        case GL_FLOAT_VEC3: glUniform3f(u.location, f(0), f(1), f(2))
        case GL_FLOAT_VEC4: glUniform4f(u.location, f(0), f(1), f(2), f(3))
        case GL_INT, GL_BOOL: glUniform1i(u.location, n(0))
        case GL_INT_VEC2, GL_BOOL_VEC2: glUniform2i(u.location, n(0), n(1))
        case GL_INT_VEC3, GL_BOOL_VEC3: glUniform3i(u.location, n(0), n(1), n(2))
        case GL_INT_VEC4, GL_BOOL_VEC4: glUniform4i(u.location, n(0), n(1), n(2), n(3))
        default: break
        }
    }

    /// Where an active uniform's value comes from, for `--list-uniforms`.
    public func valueSource(of name: String) -> String {
        if user.contains(where: { $0.0.name == name }) { return "\(Setting.uniform)" }
        switch name {
        case "iTime", "u_time": return "seconds: frame / fps in exports, the clock when live"
        case "iTimeDelta", "u_delta": return "seconds since the previous frame"
        case "iFrame", "u_frame": return "frame number"
        case "iFrameRate": return "frames per second (\(Setting.fps))"
        case "iResolution", "u_resolution": return "output size in pixels"
        case "iMouse", "u_mouse": return "always 0 (no pointer on a console)"
        case "iDate", "u_date": return "year, month 0-11, day, seconds (2000-01-01 plus the time in exports)"
        case "u_texture": return "channel 0: the frame, its crop region"
        case "iChannelResolution": return "each channel's size in pixels"
        case "iChannelTime": return "the time, per channel"
        default: break
        }
        for prefix in ["iChannel", "u_tex"] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            if let i = Int(rest) { return "channel \(i) (\(Setting.channel) \(i)=...)" }
            if rest.hasSuffix("Resolution"), let i = Int(rest.dropLast(10)) { return "channel \(i)'s size in pixels" }
        }
        if name.hasPrefix("u_buffer") || name.hasPrefix("u_doubleBuffer") { return "the buffer pass compiled with \(name.hasPrefix("u_buffer") ? "BUFFER_" : "DOUBLE_BUFFER_")\(name.filter(\.isNumber)) defined" }
        return "not set: 0 (give it with \(Setting.uniform) \(name)=...)"
    }

    private static func activeUniforms(_ program: GLuint) -> [ActiveUniform] {
        var count: GLint = 0
        glGetProgramiv(program, GLenum(GL_ACTIVE_UNIFORMS), &count)
        var result: [ActiveUniform] = []
        var buffer = [GLchar](repeating: 0, count: 256)
        for i in 0..<max(count, 0) {
            var length: GLsizei = 0, size: GLint = 0, type: GLenum = 0
            glGetActiveUniform(program, GLuint(i), 256, &length, &size, &type, &buffer)
            var name = String(cString: buffer)
            if name.hasSuffix("[0]") { name = String(name.dropLast(3)) }
            result.append(ActiveUniform(name: name, type: type, location: glGetUniformLocation(program, name), size: Int(size)))
        }
        return result.sorted { $0.name < $1.name }
    }
}

/// A user shader that did not compile or link: the driver's messages, one
/// per line, each `file:line[:column]: error: message` in the user's files.
public struct ShaderCompileError: Error, CustomStringConvertible {
    public var description: String
}
