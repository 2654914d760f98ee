import Foundation
import Pixels

/// The test's own image signal processor for raw Bayer frames, written
/// plainly from the definitions (each demosaic as its published 5x5 weight
/// tables, in Double) to check `BayerISP` against, and mosaics made from RGB pictures.
enum BayerReference {
    /// The color (0 red, 1 green, 2 blue) sampled at (x, y) in the layout whose
    /// top-left 2x2 block is named by `format` ("rggb8" → R G / G B).
    static func color(_ format: RepackedFormat, _ x: Int, _ y: Int) -> Int {
        let letter = Array(format.rawValue.prefix(4))[(y % 2) * 2 + x % 2]
        return ["r": 0, "g": 1, "b": 2][letter]!
    }

    /// The samples of `format` seeing `image` (0...1 each channel) with each
    /// color multiplied by `light` (a color cast) and `black` added, full scale at the format's depth.
    static func samples(_ format: RepackedFormat, _ image: Image, light: SIMD3<Double> = SIMD3(1, 1, 1), black: Int = 0) -> [Int] {
        let top = Double((1 << format.mosaic!.bits) - 1)
        var out: [Int] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let c = color(format, x, y)
                let v = Double(image.pixel(x, y)[c]) / 255 * light[c]
                out.append(min(Int(top), Int((v * (top - Double(black))).rounded()) + black))
            }
        }
        return out
    }

    /// `samples` as the format stores them: bytes, or little-endian 16-bit words.
    static func bytes(_ format: RepackedFormat, _ samples: [Int]) -> [UInt8] {
        if format.isMIPIPacked {
            // MIPI CSI-2: the high 8 bits of each sample of a group, then the low bits gathered, first sample lowest
            // (rows are whole groups, so the rows' samples back to back pack as the rows do).
            let bits = format.mosaic!.bits, group = bits == 10 ? 4 : 2, low = bits - 8
            return stride(from: 0, to: samples.count, by: group).flatMap { start -> [UInt8] in
                let g = samples[start..<start + group]
                return g.map { UInt8($0 >> low) } + [UInt8(g.enumerated().reduce(0) { $0 | ($1.element & ((1 << low) - 1)) << ($1.offset * low) })]
            }
        }
        return format.mosaic!.bits > 8 ? samples.flatMap { [UInt8($0 & 255), UInt8($0 >> 8)] } : samples.map { UInt8($0) }
    }

    /// Weights in eighths, rows top to bottom, centered on the sample.
    typealias Kernel = [[Double]]
    static let malvar: (green: Kernel, across: Kernel, down: Kernel, diagonal: Kernel) = (
        [[0, 0, -1, 0, 0], [0, 0, 2, 0, 0], [-1, 2, 4, 2, -1], [0, 0, 2, 0, 0], [0, 0, -1, 0, 0]],
        [[0, 0, 0.5, 0, 0], [0, -1, 0, -1, 0], [-1, 4, 5, 4, -1], [0, -1, 0, -1, 0], [0, 0, 0.5, 0, 0]],
        [[0, 0, -1, 0, 0], [0, -1, 4, -1, 0], [0.5, 0, 5, 0, 0.5], [0, -1, 4, -1, 0], [0, 0, -1, 0, 0]],
        [[0, 0, -1.5, 0, 0], [0, 2, 0, 2, 0], [-1.5, 0, 6, 0, -1.5], [0, 2, 0, 2, 0], [0, 0, -1.5, 0, 0]])
    static let bilinear: (green: Kernel, across: Kernel, down: Kernel, diagonal: Kernel) = (
        [[0, 0, 0, 0, 0], [0, 0, 2, 0, 0], [0, 2, 0, 2, 0], [0, 0, 2, 0, 0], [0, 0, 0, 0, 0]],
        [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 4, 0, 4, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]],
        [[0, 0, 0, 0, 0], [0, 0, 4, 0, 0], [0, 0, 0, 0, 0], [0, 0, 4, 0, 0], [0, 0, 0, 0, 0]],
        [[0, 0, 0, 0, 0], [0, 2, 0, 2, 0], [0, 0, 0, 0, 0], [0, 2, 0, 2, 0], [0, 0, 0, 0, 0]])

    /// The picture the settings make of `samples` (`width` x `height` of
    /// `format`), white balanced with `gains`; edges mirrored without repeating the edge sample.
    static func process(_ format: RepackedFormat, _ samples: [Int], width: Int, height: Int, settings: ISPSettings,
                        gains: SIMD3<Double>) -> Image {
        let top = Double((1 << format.mosaic!.bits) - 1), black = Double(settings.blackLevel ?? 0)
        func mirror(_ i: Int, _ n: Int) -> Int { i < 0 ? -i : i >= n ? 2 * n - 2 - i : i }
        func value(_ x: Int, _ y: Int) -> Double {
            let (mx, my) = (mirror(x, width), mirror(y, height))
            return max(0, min(Double(samples[my * width + mx]), top) - black) / (top - black) * gains[color(format, mx, my)]
        }
        let k = settings.demosaic == .malvar ? malvar : bilinear
        func apply(_ kernel: Kernel, _ x: Int, _ y: Int) -> Double {
            var sum = 0.0
            for dy in -2...2 { for dx in -2...2 where kernel[dy + 2][dx + 2] != 0 { sum += kernel[dy + 2][dx + 2] * value(x + dx, y + dy) } }
            return sum / 8
        }
        return Image(width: width, height: height) { x, y in
            var rgb = SIMD3<Double>(0, 0, 0)
            let own = color(format, x, y)
            rgb[own] = value(x, y)
            switch own {
            case 1:
                let redBeside = color(format, x + 1, y) == 0
                rgb[0] = apply(redBeside ? k.across : k.down, x, y)
                rgb[2] = apply(redBeside ? k.down : k.across, x, y)
            default:
                rgb[1] = apply(k.green, x, y)
                rgb[2 - own] = apply(k.diagonal, x, y)
            }
            if let m = settings.colorMatrix?.map(Double.init) {
                rgb = SIMD3(m[0] * rgb.x + m[1] * rgb.y + m[2] * rgb.z, m[3] * rgb.x + m[4] * rgb.y + m[5] * rgb.z,
                            m[6] * rgb.x + m[7] * rgb.y + m[8] * rgb.z)
            }
            let encoded = (0..<3).map { Float(settings.encode(min(1, max(0, rgb[$0])))) }
            return SIMD4(encoded[0], encoded[1], encoded[2], 1)
        }
    }

    /// Gray-world gains of `samples`: the means of red and blue (less black) made the mean of green.
    static func grayWorld(_ format: RepackedFormat, _ samples: [Int], width: Int, height: Int, black: Int) -> SIMD3<Double> {
        var sums = SIMD3<Double>(0, 0, 0), counts = SIMD3<Double>(0, 0, 0)
        for y in 0..<height {
            for x in 0..<width {
                let c = color(format, x, y)
                sums[c] += Double(max(0, samples[y * width + x] - black))
                counts[c] += 1
            }
        }
        let means = sums / counts
        return SIMD3(means.y / means.x, 1, means.y / means.z)
    }

    /// The RGB picture in an RGB24 frame, as an `Image`.
    static func image(_ buffer: FrameBuffer) -> Image {
        let bytes = Array(buffer.planes[0].bytes)
        var pixels: [UInt8] = []
        for i in 0..<buffer.width * buffer.height { pixels += [bytes[i * 3], bytes[i * 3 + 1], bytes[i * 3 + 2], 255] }
        return Image(width: buffer.width, height: buffer.height, pixels: pixels)
    }
}
