import Dispatch
import Filters
import Pixels

/// What a recording's CPU path spends on each picture: `YUVToYUV420`, a
/// 720p YUYV frame with sensor-like noise to BT.709 4:2:0 with sepia, on one
/// thread, its fixed-point bulk against the floating-point map alone;
/// nanoseconds a pixel, the best of 30 after 3 to warm up.
struct PlanarConversionBenchmark {
    var width = 1280, height = 720

    func run() -> String {
        let buffer = FrameBuffer(format: .yuyv, width: width, height: height)
        var seed: UInt32 = 7
        for i in 0..<buffer.allBytes.count {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            // Luma around the middle gray with noise; chroma near neutral, some beyond the RGB cube.
            buffer.allBytes[i] = i & 1 == 0 ? UInt8(96 + Int(seed >> 26)) : UInt8(100 + Int(seed >> 27))
        }
        let frame = buffer.frame(sequence: 0, timestamp: 0)
        let sepia = ColorMatrix.sepia.rgbTransform
        let output = YUVColorSpace(matrix: .bt709, range: .limited)
        func nanoseconds(fixedPoint: Bool) -> Double {
            let converter = YUVToYUV420(threads: 1, fixedPoint: fixedPoint)
            var best = Double.infinity
            for round in 0..<33 {
                let start = DispatchTime.now().uptimeNanoseconds
                converter.convert(frame, x: 0, y: 0, width: width, height: height, transform: sepia, to: output)
                if round >= 3 { best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start)) }
            }
            return best / Double(width * height)
        }
        let fixed = nanoseconds(fixedPoint: true), float = nanoseconds(fixedPoint: false)
        return String(format: "  YUYV to 4:2:0 with sepia on the CPU, %dx%d, one thread: fixed point %.2f ns a pixel, floating point %.2f ns (%.2fx as fast)",
                      width, height, fixed, float, float / fixed)
    }
}
