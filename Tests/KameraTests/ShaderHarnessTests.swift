import Filters
import GPU
import Output
import Render
import ShaderHarness
import XCTest

/// The shader harness on the GPU: each convention's coordinates, time and
/// uniforms, buffers with feedback, channels, includes and defines, each
/// compared per pixel with a CPU reference computed from the input image.
/// Tolerance: 1 of 255 per channel (one rounding step), 0 where the shader
/// only moves pixels.
final class ShaderHarnessTests: ScratchFolderTestCase {
    let input = sampleImage(width: 40, height: 30)

    /// Writes `files` into the scratch folder, runs `main` over `input` for
    /// output frames `0..<count` (frame numbers from `start`) and returns them.
    func render(_ main: String, files: [String: String] = [:], count: Int = 1, start: Int = 0, fps: Double = 30,
                gles: GLESVersion = .auto, configure: (inout ShaderHarnessConfiguration) throws -> Void = { _ in }) throws -> [Image] {
        for (name, text) in files.merging(["main.frag": main], uniquingKeysWith: { a, _ in a }) {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        var configuration = ShaderHarnessConfiguration(main: folder.appendingPathComponent("main.frag").path)
        try configure(&configuration)
        return try GPUHarness.renderShader(configuration, over: input, frames: count, start: start, fps: fps, gles: gles)
    }

    private func quantized(_ v: Float) -> Float { (max(0, min(1, v)) * 255).rounded() / 255 }

    func testShadertoyCoordinatesAreBottomUpAndTheChannelIsUpright() throws {
        let image = try render("""
            void mainImage(out vec4 fragColor, in vec2 fragCoord) {
                vec2 uv = fragCoord / iResolution.xy;
                vec3 c = texture(iChannel0, uv).rgb;
                if (uv.x < 0.5) c = vec3(dot(c, vec3(0.299, 0.587, 0.114)));
                if (uv.y < 0.1) c = vec3(1.0, 0.0, 0.0);
                fragColor = vec4(c, 0.25);
            }
            """)[0]
        let reference = Image(width: input.width, height: input.height) { x, y in
            let c = self.input.color(x, y)
            let fy = (Float(self.input.height - 1 - y) + 0.5) / Float(self.input.height)
            if fy < 0.1 { return SIMD4(1, 0, 0, 1) }
            if (Float(x) + 0.5) / Float(self.input.width) < 0.5 {
                let g = 0.299 * c.x + 0.587 * c.y + 0.114 * c.z
                return SIMD4(g, g, g, 1)
            }
            // Shadertoy ignores the image pass's alpha: the picture is opaque.
            return SIMD4(c.x, c.y, c.z, 1)
        }
        XCTAssertClose(image, reference, tolerance: 1, "Shadertoy gray half and bottom bar")
    }

    func testGLSLViewerConventionInBothLanguageVersions() throws {
        let reference = Image(width: input.width, height: input.height) { x, y in
            let c = self.input.color(x, y)
            return Float(self.input.height - 1 - y) + 0.5 < Float(self.input.height) * 0.1 ? SIMD4(0, 1, 0, 1) : SIMD4(c.z, c.y, c.x, 1)
        }
        let es100 = try render("""
            #ifdef GL_ES
            precision mediump float;
            #endif
            uniform sampler2D u_tex0;
            uniform vec2 u_resolution;
            varying vec2 v_texcoord;
            void main() {
                vec3 c = texture2D(u_tex0, v_texcoord).rgb;
                if (gl_FragCoord.y < u_resolution.y * 0.1) c = vec3(0.0, 1.0, 0.0);
                gl_FragColor = vec4(c.bgr, 1.0);
            }
            """)[0]
        XCTAssertClose(es100, reference, tolerance: 0, "glslViewer, GLSL ES 1.00")
        let es300 = try render("""
            #version 300 es
            precision mediump float;
            uniform sampler2D u_tex0;
            in vec2 v_texcoord;
            out vec4 fragColor;
            void main() {
                vec3 c = texture(u_tex0, v_texcoord).rgb;
                if (gl_FragCoord.y < u_resolution.y * 0.1) c = vec3(0.0, 1.0, 0.0);
                fragColor = vec4(c.bgr, 1.0);
            }
            """)[0]
        XCTAssertClose(es300, reference, tolerance: 0, "glslViewer, GLSL ES 3.00, u_resolution declared by the prolog")
    }

    func testKameraConventionRunsInTheHarness() throws {
        let image = try render("""
            precision mediump float;
            varying vec2 v_texcoord;
            uniform sampler2D u_texture;
            void main() { gl_FragColor = texture2D(u_texture, v_texcoord).gbra; }
            """)[0]
        let reference = Image(width: input.width, height: input.height) { x, y in
            let c = self.input.color(x, y)
            return SIMD4(c.y, c.z, c.x, c.w)
        }
        XCTAssertClose(image, reference, tolerance: 0, "u_texture, top-first as Kamera's filters")
    }

    func testTimeIsFrameExact() throws {
        let shadertoy = try render("""
            void mainImage(out vec4 o, in vec2 p) {
                o = vec4(fract(iTime), float(iFrame) / 255.0, iTimeDelta * 10.0, 1.0);
                o.b += iFrameRate / 1000.0;
            }
            """, count: 3, start: 7, fps: 25)
        for (index, image) in shadertoy.enumerated() {
            let frame = 7 + index
            let time = Float(frame) / 25
            let expected = SIMD4<Float>(quantized(time - time.rounded(.down)), Float(frame) / 255, quantized(10 / 25 + 0.025), 1)
            XCTAssertClose(image, Image(width: input.width, height: input.height) { _, _ in expected }, tolerance: 1, "Shadertoy frame \(frame)")
        }
        let viewer = try render("""
            precision highp float;
            uniform float u_time;
            uniform int u_frame;
            uniform float u_delta;
            uniform vec2 u_resolution;
            void main() { gl_FragColor = vec4(u_time / 10.0, float(u_frame) / 255.0, u_resolution.x / 255.0, u_delta * 4.0); }
            """, count: 2, start: 100, fps: 12)
        for (index, image) in viewer.enumerated() {
            let frame = 100 + index
            let expected = SIMD4<Float>(quantized(Float(frame) / 12 / 10), Float(frame) / 255, Float(input.width) / 255, quantized(4.0 / 12))
            XCTAssertClose(image, Image(width: input.width, height: input.height) { _, _ in expected }, tolerance: 1, "glslViewer frame \(frame)")
        }
    }

    func testBufferFeedbackCountsFrames() throws {
        let images = try render("void mainImage(out vec4 o, in vec2 p) { o = texture(iChannel1, p / iResolution.xy); }",
                                files: ["counter.frag": """
                                    void mainImage(out vec4 o, in vec2 p) {
                                        vec4 previous = texture(iChannel1, p / iResolution.xy);
                                        o = vec4(previous.r + 1.0 / 255.0, texture(iChannel0, p / iResolution.xy).g, 0.0, 1.0);
                                    }
                                    """], count: 5) { configuration in
            configuration.buffers = [try .init(parsing: "A=\(self.folder.appendingPathComponent("counter.frag").path)")]
            configuration.channels[1] = .buffer("A")
        }
        for (index, image) in images.enumerated() {
            let reference = Image(width: input.width, height: input.height) { x, y in SIMD4(Float(index + 1) / 255, self.input.color(x, y).y, 0, 1) }
            XCTAssertClose(image, reference, tolerance: 0, "frame \(index): buffer A read its own previous frame")
        }
    }

    func testGLSLViewerDoubleBufferFromTheSameFile() throws {
        let images = try render("""
            precision mediump float;
            uniform sampler2D u_doubleBuffer0;
            uniform vec2 u_resolution;
            void main() {
                vec2 uv = gl_FragCoord.xy / u_resolution;
            #ifdef DOUBLE_BUFFER_0
                gl_FragColor = vec4(texture2D(u_doubleBuffer0, uv).g + 2.0 / 255.0);
            #else
                gl_FragColor = vec4(0.0, texture2D(u_doubleBuffer0, uv).g, 0.0, 1.0);
            #endif
            }
            """, count: 3)
        for (index, image) in images.enumerated() {
            XCTAssertClose(image, Image(width: input.width, height: input.height) { _, _ in SIMD4(0, Float(2 * (index + 1)) / 255, 0, 1) },
                           tolerance: 0, "frame \(index)")
        }
    }

    func testImageChannelAndUserUniforms() throws {
        let picture = sampleImage(width: 40, height: 30, low: 0.2, high: 0.6)
        let png = folder.appendingPathComponent("picture.png").path
        try picture.pixels.withUnsafeBytes { try PNGWriter.write($0, width: picture.width, height: picture.height, to: png) }
        let image = try render("""
            uniform vec3 u_tint;
            uniform float u_gain;
            uniform int u_shift;
            uniform bool u_on;
            void mainImage(out vec4 o, in vec2 p) {
                vec3 c = texture(iChannel2, p / iResolution.xy).rgb;
                o = vec4(u_on ? c * u_tint * u_gain + float(u_shift) / 255.0 : vec3(0.0), 1.0);
            }
            """) { configuration in
            configuration.channels[2] = .image(png)
            configuration.uniforms = try ["u_tint=1,0.5,0.25", "u_gain=1.5", "u_shift=3", "u_on=true"].map { try ShaderUniformValue(parsing: $0) }
        }[0]
        let reference = Image(width: input.width, height: input.height) { x, y in
            let c = picture.color(x, y)
            return SIMD4(c.x * 1.5 + 3 / 255, c.y * 0.75 + 3 / 255, c.z * 0.375 + 3 / 255, 1)
        }
        XCTAssertClose(image, reference, tolerance: 1, "PNG on channel 2, upright, times the uniforms")
    }

    func testIncludesDefinesAndTheKameraDefine() throws {
        let image = try render("""
            #include "lib/colors.glsl"
            void mainImage(out vec4 o, in vec2 p) {
            #if defined(KAMERA) && LEVEL == 2
                o = vec4(RED, 1.0);
            #else
                o = vec4(0.0, 0.0, 1.0, 1.0);
            #endif
            }
            """, files: ["lib/colors.glsl": "#include \"more.glsl\"\n", "inc/more.glsl": "#define RED vec3(1.0, 0.0, one_half())\nfloat one_half() { return 0.5; }\n"]) { configuration in
            configuration.defines = [try ShaderDefine(parsing: "LEVEL=2")]
            configuration.includePaths = [self.folder.appendingPathComponent("inc").path]
        }[0]
        XCTAssertClose(image, Image(width: input.width, height: input.height) { _, _ in SIMD4(1, 0, 0.5, 1) }, tolerance: 1, "include chain and defines")
    }

    func testGLES2RunsShadertoyShadersAsGLSL100() throws {
        let shader = """
            uniform sampler2D iChannel0;  // declared by the shader itself, as many published ones do
            void mainImage(out vec4 o, in vec2 p) { o = texture(iChannel0, p / iResolution.xy).gbra; }
            """
        let es3 = try render(shader, gles: .gles3)[0]
        let es2 = try render(shader, gles: .gles2)[0]
        let reference = Image(width: input.width, height: input.height) { x, y in
            let c = self.input.color(x, y)
            return SIMD4(c.y, c.z, c.x, 1)
        }
        XCTAssertClose(es3, reference, tolerance: 0, "GLES 3")
        XCTAssertClose(es2, reference, tolerance: 0, "GLES 2")
        XCTAssertThrowsError(try render("#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n", gles: .gles2)) {
            XCTAssertTrue("\($0)".contains("needs OpenGL ES 3"), "\($0)")
        }
    }

    /// `--filter my.frag` in the normal pipeline: a Shadertoy shader between
    /// a crop (a region of the frame's texture) and a color matrix.
    func testForeignConventionsWorkAsFiltersBetweenCropAndColorMatrix() throws {
        let url = folder.appendingPathComponent("swap.frag")
        try "void mainImage(out vec4 o, in vec2 p) { o = texture(iChannel0, p / iResolution.xy).gbra; }\n".write(to: url, atomically: true, encoding: .utf8)
        let (frame, buffer) = input.frame()
        let settings = RenderSettings(crop: .square, filters: try FilterChain(parsing: [url.path, "sepia"]))
        let image = try withExtendedLifetime(buffer) {
            try GPUHarness.run { context in
                let renderer = try FrameRenderer(context: context, settings: settings)
                let pixels = try renderer.render(frame, index: 0)
                let size = renderer.outputSize(for: frame)
                return Image(width: size.width, height: size.height, pixels: Array(pixels.prefix(size.width * size.height * 4)))
            }
        }
        let side = input.height, left = (input.width - side) / 2
        let reference = Image(width: side, height: side) { x, y in
            let c = self.input.color(left + x, y)
            return ColorMatrix.sepia.apply(SIMD4(c.y, c.z, c.x, 1))
        }
        XCTAssertClose(image, reference, tolerance: 2, "square crop → Shadertoy swap → sepia")
    }

    func testCompileErrorsNameTheUsersFileAndLine() throws {
        XCTAssertThrowsError(try render("""
            // a comment
            #include "util.glsl"
            void mainImage(out vec4 o, in vec2 p) {
                o = vec4(lum(vec3(1.0)));
                o.r = not_declared;
            }
            """, files: ["util.glsl": "float lum(vec3 c) { return dot(c, vec3(0.3, 0.6, 0.1)); }\nfloat broken() { return also_missing; }\n"])) { error in
            let lines = "\(error)".split(separator: "\n").map(String.init)
            let util = folder.appendingPathComponent("util.glsl").path, main = folder.appendingPathComponent("main.frag").path
            XCTAssertTrue(lines.contains { $0.hasPrefix("\(util):2:") && $0.contains("also_missing") }, "\(error)")
            XCTAssertTrue(lines.contains { $0.hasPrefix("\(main):5:") && $0.contains("not_declared") }, "\(error)")
            XCTAssertTrue(error is ShaderCompileError)
        }
    }

    /// Kamera's own shaders get `#define` lines before their text (the YUV
    /// layout, the demosaic); errors still name the file's own lines.
    func testDefinesPutFirstKeepLineNumbers() throws {
        let vertex = "attribute vec4 a_position;\nvoid main() {\n    gl_Position = a_position * vertex_missing;\n}\n"
        let fragment = "precision mediump float;\nvoid main() {\n    gl_FragColor = vec4(FRAGMENT_ONLY, fragment_missing);\n}\n"
        let good = "attribute vec4 a_position;\nvoid main() {\n    gl_Position = a_position;\n}\n"
        let defines = "#define FRAGMENT_ONLY 1.0\n#define UNUSED\n"
        try GPUHarness.run(gles: .gles2) { _ in
            XCTAssertThrowsError(try ShaderProgram(vertex: vertex, fragment: fragment, vertexName: "t.vert", fragmentName: "t.frag", defines: defines)) { error in
                XCTAssertTrue("\(error)".hasPrefix("t.vert:3: error:") && "\(error)".contains("vertex_missing"), "\(error)")
            }
            XCTAssertThrowsError(try ShaderProgram(vertex: good, fragment: fragment, vertexName: "t.vert", fragmentName: "t.frag", defines: defines)) { error in
                XCTAssertTrue("\(error)".hasPrefix("t.frag:3: error:") && "\(error)".contains("fragment_missing"), "\(error)")
            }
        }
    }

    /// Found by the fuzzer: a file with Windows line ends was one line to the
    /// preprocessor (Swift's "\r\n" is one Character), so errors named line 1.
    func testWindowsLineEndsKeepLineNumbers() throws {
        XCTAssertThrowsError(try render("// Windows\r\nvoid mainImage(out vec4 o, in vec2 p) {\r\n    o = vec4(crlf_missing);\r\n}\r\n")) { error in
            XCTAssertTrue("\(error)".hasPrefix(folder.appendingPathComponent("main.frag").path + ":3:"), "\(error)")
        }
        let image = try render("#define GREEN 1.0\r\nvoid mainImage(out vec4 o, in vec2 p) {\r\n    o = vec4(0.0, GREEN, 0.0, 1.0);\r\n}\r\n")[0]
        XCTAssertClose(image, Image(width: input.width, height: input.height) { _, _ in SIMD4(0, 1, 0, 1) }, tolerance: 0, "CRLF source")
    }

    func testIncludeCyclesAndMissingFilesAreRefused() throws {
        XCTAssertThrowsError(try render("#include \"a.glsl\"\nvoid mainImage(out vec4 o, in vec2 p) { o = vec4(1.0); }\n",
                                        files: ["a.glsl": "#include \"b.glsl\"\n", "b.glsl": "\n#include \"a.glsl\"\n"])) { error in
            XCTAssertTrue("\(error)".hasSuffix("b.glsl:2: #include \"a.glsl\" makes a cycle: a.glsl -> b.glsl -> a.glsl"), "\(error)")
        }
        XCTAssertThrowsError(try render("#include \"nowhere.glsl\"\nvoid main() {}\n") { $0.includePaths = ["/nonexistent"] }) { error in
            XCTAssertTrue("\(error)".contains("main.frag:1: #include \"nowhere.glsl\": no such file in"), "\(error)")
            XCTAssertTrue("\(error)".contains("/nonexistent"), "\(error)")
        }
    }

    func testConventionDetectionAndDriverLogFormats() {
        XCTAssertEqual(ShaderConvention.detect("void mainImage(out vec4 o, in vec2 p) {}"), .shadertoy)
        XCTAssertEqual(ShaderConvention.detect("uniform sampler2D u_texture; void main() {}"), .kamera)
        XCTAssertEqual(ShaderConvention.detect("// mainImage in a comment\nuniform float u_time; void main() {}"), .glslViewer)
        let place: (Int) -> String = { "f.frag:\($0 - 10)" }
        XCTAssertEqual(ShaderProgram.formatLog("0(14) : error C0000: syntax error, unexpected '}'", name: "f.frag", place: place),
                       "f.frag:4: error: syntax error, unexpected '}'")
        XCTAssertEqual(ShaderProgram.formatLog("0:12(7): error: `x' undeclared", name: "f.frag", place: place), "f.frag:2: error: `x' undeclared",
                       "no column: Mesa's count collapsed runs of spaces")
        XCTAssertEqual(ShaderProgram.formatLog("ERROR: 0:13: 'y' : undeclared identifier", name: "f.frag", place: place),
                       "f.frag:3: error: 'y' : undeclared identifier")
        // Two messages glued on one line come out as two lines.
        XCTAssertEqual(ShaderProgram.formatLog("0:12(7): error: `x' undeclared0:13(2): error: `y' undeclared", name: "f.frag", place: place),
                       "f.frag:2: error: `x' undeclared\nf.frag:3: error: `y' undeclared")
        // Line 0 is the whole program: the file, no line.
        XCTAssertEqual(ShaderProgram.formatLog("0:0(0): error: function `f' has static recursion", name: "f.frag", place: place),
                       "f.frag: error: function `f' has static recursion")
        // Thousands of errors: the first 20 and a count.
        let many = (1...5001).map { "0:\($0 + 10)(1): error: `v\($0)' undeclared" }.joined(separator: "\n")
        let shown = ShaderProgram.formatLog(many, name: "f.frag", place: place).split(separator: "\n")
        XCTAssertEqual(shown.count, 21)
        XCTAssertEqual(shown.last, "f.frag: 4981 more errors not shown (5001 in all)")
    }

    func testImageComparisonCountsAndFindsTheWorstPixel() {
        let a: [UInt8] = [10, 10, 10, 255, 20, 20, 20, 255, 30, 30, 30, 255]
        var b = a
        b[4] = 23   // pixel 1 off by 3
        b[10] = 40  // pixel 2 off by 10
        let comparison = a.withUnsafeBytes { ea in b.withUnsafeBytes { ImageComparison(expected: ea, actual: $0, width: 3, height: 1, tolerance: 3) } }
        XCTAssertEqual(comparison.differing, 1)
        XCTAssertEqual(comparison.worst, 10)
        XCTAssertEqual(comparison.worstX, 2)
        XCTAssertEqual(comparison.actualPixel, SIMD4(30, 30, 40, 255))
        XCTAssertFalse(comparison.matches)
        let exact = a.withUnsafeBytes { ea in a.withUnsafeBytes { ImageComparison(expected: ea, actual: $0, width: 3, height: 1, tolerance: 0) } }
        XCTAssertTrue(exact.matches)
    }
}
