import GPU
import Pixels
import Render
import ShaderHarness
import XCTest

/// Runs GL work for tests on one render thread that owns the contexts, as the
/// application does. Contexts are real Mesa EGL contexts (llvmpipe without a GPU).
enum GPUHarness {
    static let thread = RenderThread(name: "kamera.tests.render")
    nonisolated(unsafe) private static var contexts: [GLESVersion: GPUContext] = [:]

    static func run<T>(gles: GLESVersion = .auto, _ body: @escaping (GPUContext) throws -> T) throws -> T {
        try thread.sync {
            let context = try contexts[gles] ?? GPUContext(platform: .auto, version: gles)
            contexts[gles] = context
            try context.makeCurrent()
            return try body(context)
        }
    }

    /// Renders one frame through a fresh `FrameRenderer` and returns the pixels.
    static func render(_ frame: Frame, settings: RenderSettings, index: Int = 0, gles: GLESVersion = .auto) throws -> Image {
        try run(gles: gles) { context in
            let renderer = try FrameRenderer(context: context, settings: settings)
            let pixels = try renderer.render(frame, index: index)
            let size = renderer.outputSize(for: frame)
            return Image(width: size.width, height: size.height, pixels: Array(pixels.prefix(size.width * size.height * 4)))
        }
    }
}

extension GPUHarness {
    /// Runs the shader harness over `image` (no crop) for output frames
    /// `0..<frames`, frame numbers from `start`, frame-exact at `fps`.
    static func renderShader(_ configuration: ShaderHarnessConfiguration, over image: Image, frames: Int = 1, start: Int = 0,
                             fps: Double = 30, gles: GLESVersion = .auto) throws -> [Image] {
        let (frame, buffer) = image.frame()
        return try withExtendedLifetime(buffer) {
            try run(gles: gles) { context in
                var settings = RenderSettings(crop: .none)
                settings.rate = fps
                let renderer = try FrameRenderer(context: context, settings: settings)
                renderer.customStages = [try ShaderHarness(configuration: configuration, clock: ShaderClock(mode: .exact(start: start), fps: fps), context: context)]
                return try (0..<frames).map { index in
                    Image(width: frame.width, height: frame.height, pixels: Array(try renderer.render(frame, index: index)))
                }
            }
        }
    }
}

/// RGBA pixels read back from the GPU or computed by a CPU reference.
struct Image: Equatable {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    init(width: Int, height: Int, _ color: (Int, Int) -> SIMD4<Float>) {
        self.width = width
        self.height = height
        pixels = []
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let c = color(x, y)
                for i in 0..<4 { pixels.append(UInt8(max(0, min(255, (c[i] * 255).rounded())))) }
            }
        }
    }

    func pixel(_ x: Int, _ y: Int) -> SIMD4<Int> {
        let i = (y * width + x) * 4
        return SIMD4(Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]), Int(pixels[i + 3]))
    }

    func color(_ x: Int, _ y: Int) -> SIMD4<Float> {
        SIMD4<Float>(pixel(x, y)) / 255
    }

    /// The largest per-channel difference (RGB and alpha) and where it is.
    /// The largest channel difference at pixel (x, y).
    func maxDifference(_ other: Image, _ x: Int, _ y: Int) -> Int {
        let d = pixel(x, y) &- other.pixel(x, y)
        return max(abs(d.x), abs(d.y), abs(d.z), abs(d.w))
    }

    func maxDifference(_ other: Image) -> (value: Int, x: Int, y: Int) {
        precondition(width == other.width && height == other.height, "sizes differ: \(width)x\(height) vs \(other.width)x\(other.height)")
        var worst = (0, 0, 0)
        for y in 0..<height {
            for x in 0..<width {
                let d = (pixel(x, y) &- other.pixel(x, y))
                let m = max(abs(d.x), abs(d.y), abs(d.z), abs(d.w))
                if m > worst.0 { worst = (m, x, y) }
            }
        }
        return worst
    }

    /// An RGBA frame holding these pixels.
    func frame() -> (Frame, FrameBuffer) {
        let buffer = FrameBuffer(format: .rgba, width: width, height: height)
        pixels.withUnsafeBytes { buffer.mutablePlane(0).copyMemory(from: $0) }
        return (buffer.frame(sequence: 0, timestamp: 0), buffer)
    }
}

func XCTAssertClose(_ image: Image, _ reference: Image, tolerance: Int, _ message: String = "",
                    file: StaticString = #filePath, line: UInt = #line) {
    guard image.width == reference.width, image.height == reference.height else {
        XCTFail("size \(image.width)x\(image.height) != reference \(reference.width)x\(reference.height) \(message)", file: file, line: line)
        return
    }
    let d = image.maxDifference(reference)
    XCTAssertLessThanOrEqual(d.value, tolerance,
        "\(message): max difference \(d.value) at (\(d.x), \(d.y)): got \(image.pixel(d.x, d.y)), want \(reference.pixel(d.x, d.y))",
        file: file, line: line)
}

/// A colorful, deterministic test image: smooth gradients plus per-pixel noise,
/// with values kept inside `low...high` (0...1).
func sampleImage(width: Int, height: Int, low: Float = 0, high: Float = 1) -> Image {
    var seed: UInt32 = 12345
    func noise() -> Float {
        seed = seed &* 1_664_525 &+ 1_013_904_223
        return Float(seed >> 24) / 255
    }
    return Image(width: width, height: height) { x, y in
        let fx = Float(x) / Float(max(1, width - 1)), fy = Float(y) / Float(max(1, height - 1))
        let c = SIMD3<Float>(fx, fy, 0.5 * (1 - fx) + 0.5 * noise())
        let mixed = 0.85 * c + 0.15 * SIMD3(noise(), noise(), noise())
        let v = low + (high - low) * mixed
        return SIMD4(v.x, v.y, v.z, 1)
    }
}
