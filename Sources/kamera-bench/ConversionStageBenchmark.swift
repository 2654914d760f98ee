import Foundation
import GPU
import Pixels

/// The conversion stage on this machine's GPU (llvmpipe where there is none),
/// in one process: a raw Bayer frame's upload and demosaic pass (`bayer.frag`,
/// Malvar and bilinear) beside a YUYV frame's upload and conversion pass
/// (`yuyv.frag`), the same size, uncropped, each followed by `glFinish`;
/// median of 20 after 3 to warm up; 10-bit Bayer in 16-bit words beside
/// MIPI-packed, the latter unpacked by the demosaic as it reads. Then every other layout the texture
/// cache reads, as it reads it (RGB orders by swizzle, deep gray by its pass).
struct ConversionStageBenchmark {
    let width: Int, height: Int

    func run() throws -> String {
        let thread = RenderThread(name: "kamera.bench.stage")
        defer { thread.shutdown() }
        return try thread.sync {
            let context = try GPUContext()
            try context.makeCurrent()
            let cache = try FrameUploader(context: context, crop: .none)
            cache.yuvConversion = .shader
            var generator = SystemRandomNumberGenerator()
            func random(_ format: PixelFormat) -> FrameBuffer {
                let buffer = FrameBuffer(format: format, width: width, height: height)
                for i in 0..<buffer.allBytes.count { buffer.allBytes[i] = UInt8.random(in: 0...255, using: &generator) }
                return buffer
            }
            func median(_ frame: Frame) throws -> Double {
                var times: [Double] = []
                for round in 0..<23 {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try cache.texture(for: frame)
                    GL.finish()
                    if round >= 3 { times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6) }
                }
                times.sort()
                return (times[9] + times[10]) / 2
            }
            let yuyv = random(.yuyv), mosaic = random(.bayer8)
            let yuyvMS = try median(yuyv.frame(sequence: 0, timestamp: 0))
            var ms: [ISPSettings.Demosaic: Double] = [:]
            for demosaic in ISPSettings.Demosaic.allCases {
                var settings = ISPSettings()
                settings.demosaic = demosaic
                var frame = mosaic.frame(sequence: 0, timestamp: 0)
                frame.bayer = RawBayer(format: .rggb8, settings: settings, gains: SIMD3(1.5, 1, 1.3))
                ms[demosaic] = try median(frame)
            }
            let (malvar, bilinear) = (ms[.malvar]!, ms[.bilinear]!)
            // 10-bit samples, Malvar: in 16-bit words, and MIPI-packed (the PACKED program unpacks as it reads).
            var deep: [Double] = []
            for (buffer, format) in [(random(.bayer16), RepackedFormat.rggb10), (random(.bayer10p), .rggb10p)] {
                var frame = buffer.frame(sequence: 0, timestamp: 0)
                frame.bayer = RawBayer(format: format, settings: ISPSettings(), gains: SIMD3(1.5, 1, 1.3))
                deep.append(try median(frame))
            }
            // Every other layout the GPU reads as the camera gave it, beside RGBA uploaded as it is.
            var layouts: [String] = []
            for format in PixelFormat.allCases where !format.isMosaic {
                layouts.append(String(format: "%@ %.2f", format.fourcc.filter { $0 != " " }, try median(random(format).frame(sequence: 0, timestamp: 0))))
            }
            return String(format: "  the conversion pass on %@ at %dx%d (upload + shader + glFinish): demosaic Malvar %.2f ms, bilinear %.2f ms; YUYV %.2f ms; Malvar/YUYV %.2fx",
                          context.renderer, width, height, malvar, bilinear, yuyvMS, malvar / yuyvMS)
                + String(format: "\n  10-bit Bayer, Malvar: in 16-bit words (RG10) %.2f ms, MIPI-packed (pRAA) %.2f ms; packed/words %.2fx", deep[0], deep[1], deep[1] / deep[0])
                + "\n  each layout as the GPU reads it, upload + pass where it has one + glFinish (ms): " + layouts.joined(separator: ", ")
        }
    }
}
