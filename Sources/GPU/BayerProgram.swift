import CGLES
import Pixels
import Shaders

/// The demosaic shader (`bayer.frag`) of one method, and its uniforms: the
/// frame uploader's conversion pass for raw Bayer frames.
final class BayerProgram {
    let program: ShaderProgram
    private let locations: (size: GLint, red: GLint, sixteen: GLint, group: GLint, texels: GLint, black: GLint, maximum: GLint, gains: GLint,
                            ccm: GLint, gamma: GLint)
    private var sent: (width: Int, height: Int, bayer: RawBayer)?

    /// What a program is made for: a demosaic, and MIPI-packed samples or not.
    struct Key: Hashable {
        var demosaic: ISPSettings.Demosaic
        var packed: Bool
    }

    init(_ key: Key) throws {
        let defines = (key.demosaic == .malvar ? "#define MALVAR 1\n" : "") + (key.packed ? "#define PACKED 1\n" : "")
        program = try ShaderProgram(quadFragment: ShaderSource.bayer, name: "bayer.frag (\(key.demosaic.rawValue)\(key.packed ? ", packed" : ""))",
                                    defines: defines)
        program.use()
        locations = (program.location("u_size"), program.location("u_red"), program.location("u_sixteen"), program.location("u_group"),
                     program.location("u_texels"), program.location("u_black"), program.location("u_maximum"), program.location("u_gains"),
                     program.location("u_ccm"), program.location("u_gamma"))
    }

    /// Sets the uniforms for `frame`, a raw Bayer frame (`PixelFormat.isMosaic`); only when they changed.
    func set(frame: Frame, bayer: RawBayer) {
        if let sent, sent.width == frame.width, sent.height == frame.height, sent.bayer == bayer { return }
        let mosaic = bayer.mosaic, black = bayer.blackLevel
        glUniform2f(locations.size, Float(frame.width), Float(frame.height))
        glUniform2f(locations.red, Float(mosaic.redColumn), Float(mosaic.redRow))
        glUniform1f(locations.sixteen, frame.format == .bayer16 ? 1 : 0)
        glUniform1f(locations.group, Float(frame.format.mipiGroup ?? 0))
        glUniform1f(locations.texels, Float(frame.format.mipiBits.map { PixelFormat.mipiRowBytes(width: frame.width, bits: $0) } ?? frame.width))
        glUniform1f(locations.black, Float(black))
        glUniform1f(locations.maximum, Float(mosaic.maximum))
        let gains = bayer.gains / Float(mosaic.maximum - black)
        glUniform3f(locations.gains, gains.x, gains.y, gains.z)
        // Row-major in the settings; GL takes columns.
        let m = bayer.settings.colorMatrix ?? [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let columns = [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]]
        columns.withUnsafeBufferPointer { glUniformMatrix3fv(locations.ccm, 1, GLboolean(GL_FALSE), $0.baseAddress) }
        let gamma: Float = switch bayer.settings.gamma {
        case .none: 0
        case .srgb: -1
        case .power(let g): 1 / g
        }
        glUniform1f(locations.gamma, gamma)
        sent = (frame.width, frame.height, bayer)
    }
}
