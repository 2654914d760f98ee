import Filters
import Foundation
import Pixels

/// CPU references for what the shaders compute, written from the standards'
/// formulas, independently of the code under test.
enum CPUReference {
    /// Y'CbCr (8-bit) to R'G'B' (0...1, clamped), from ITU-R BT.601 / BT.709.
    static func rgb(y: UInt8, u: UInt8, v: UInt8, matrix: YUVColorSpace.Matrix, range: YUVColorSpace.Range) -> SIMD3<Float> {
        rgb(y: Double(y), u: Double(u), v: Double(v), matrix: matrix, range: range)
    }

    /// The same for Y'CbCr values between the 8-bit steps (means of several
    /// samples); unclamped, the color they encode, even outside the RGB cube.
    static func rgb(y: Double, u: Double, v: Double, matrix: YUVColorSpace.Matrix, range: YUVColorSpace.Range,
                    clamped: Bool = true) -> SIMD3<Float> {
        let (kr, kb): (Double, Double) = matrix == .bt601 ? (0.299, 0.114) : (0.2126, 0.0722)
        let kg = 1 - kr - kb
        let luma: Double, cb: Double, cr: Double
        if range == .limited {
            luma = (y - 16) / 219
            cb = (u - 128) / 224
            cr = (v - 128) / 224
        } else {
            luma = y / 255
            cb = (u - 128) / 255
            cr = (v - 128) / 255
        }
        let r = luma + 2 * (1 - kr) * cr
        let b = luma + 2 * (1 - kb) * cb
        let g = (luma - kr * r - kb * b) / kg
        let color = SIMD3(Float(r), Float(g), Float(b))
        return clamped ? color.clamped(lowerBound: .zero, upperBound: .one) : color
    }

    /// `m` applied to an unclamped color, then clamped: a color matrix folded
    /// into a YUV conversion.
    static func folded(_ m: ColorMatrix?, _ rgb: SIMD3<Float>) -> SIMD4<Float> {
        let color = m.map { $0.apply(SIMD4(rgb, 1)) } ?? SIMD4(rgb, 1)
        return SIMD4(color.x, color.y, color.z, 1).clamped(lowerBound: .zero, upperBound: .one)
    }

    /// The Y'CbCr samples of pixel (x, y) of a packed 4:2:2 or semi-planar
    /// frame: its own luma and the chroma of its pair or 2x2 block.
    static func samples(_ frame: Frame, _ x: Int, _ y: Int) -> (y: UInt8, u: UInt8, v: UInt8) {
        // Where Y0, U, Y1 and V sit in each pair's 4 bytes, as the V4L2 names spell them.
        let pairs: [PixelFormat: [Int]] = [.yuyv: [0, 1, 2, 3], .uyvy: [1, 0, 3, 2], .yvyu: [0, 3, 2, 1], .vyuy: [1, 2, 3, 0]]
        switch frame.format {
        case .yuyv, .uyvy, .yvyu, .vyuy:
            let at = pairs[frame.format]!
            let row = frame.planes[0].bytes, o = y * frame.planes[0].bytesPerRow + (x / 2) * 4
            return (row[o + (x % 2 == 0 ? at[0] : at[2])], row[o + at[1]], row[o + at[3]])
        case .nv12, .nv21, .nv16, .nv61:
            // 4:2:0 (NV12, NV21) has a chroma row for each two luma rows; NV21 and NV61 keep V first.
            let luma = frame.planes[0], chroma = frame.planes[1]
            let c = (frame.format == .nv16 || frame.format == .nv61 ? y : y / 2) * chroma.bytesPerRow + (x / 2) * 2
            let (u, v) = frame.format == .nv21 || frame.format == .nv61 ? (c + 1, c) : (c, c + 1)
            return (luma.bytes[y * luma.bytesPerRow + x], chroma.bytes[u], chroma.bytes[v])
        case .yu12, .yv12, .yuv422p:
            // Y, then a U and a V plane at half width (YV12: V's plane first); 422P has a chroma row for each luma row.
            let luma = frame.planes[0], row = frame.format == .yuv422p ? y : y / 2
            let (u, v) = frame.format == .yv12 ? (frame.planes[2], frame.planes[1]) : (frame.planes[1], frame.planes[2])
            return (luma.bytes[y * luma.bytesPerRow + x], u.bytes[row * u.bytesPerRow + x / 2], v.bytes[row * v.bytesPerRow + x / 2])
        default:
            fatalError("not a YUV frame")
        }
    }

    /// Decodes a YUYV or NV12 frame (nearest chroma sample) to RGBA, with a
    /// color matrix folded in (applied before clamping) when one is given.
    static func decode(_ frame: Frame, folding m: ColorMatrix? = nil) -> Image {
        let cs = frame.colorSpace
        return Image(width: frame.width, height: frame.height) { x, y in
            let p = samples(frame, x, y)
            return folded(m, rgb(y: Double(p.y), u: Double(p.u), v: Double(p.v), matrix: cs.matrix, range: cs.range, clamped: false))
        }
    }

    /// The rectangle of a YUYV or NV12 frame at half size: each pixel from the
    /// means of Y', Cb and Cr over a 2x2 block (a last odd row or column
    /// counted twice), then converted.
    static func decodeHalved(_ frame: Frame, x: Int, y: Int, width: Int, height: Int, folding matrix: ColorMatrix? = nil) -> Image {
        let cs = frame.colorSpace
        return Image(width: max(1, width / 2), height: max(1, height / 2)) { bx, by in
            var sum = SIMD3<Double>(0, 0, 0)
            for dy in 0..<2 {
                for dx in 0..<2 {
                    let p = samples(frame, min(x + 2 * bx + dx, x + width - 1), min(y + 2 * by + dy, y + height - 1))
                    sum += SIMD3(Double(p.y), Double(p.u), Double(p.v))
                }
            }
            let m = sum / 4
            return folded(matrix, rgb(y: m.x, u: m.y, v: m.z, matrix: cs.matrix, range: cs.range, clamped: false))
        }
    }

    /// Y'CbCr from the formulas of BT.601 / BT.709: luma per pixel, chroma from
    /// the mean R, G and B of each 2x2 block (a last odd row or column counted twice) or per pixel.
    static func yuvPlanes(_ image: Image, _ colorSpace: YUVColorSpace, _ chroma: RGBAToYUV.Chroma) -> [UInt8] {
        let (kr, kg, kb) = colorSpace.lumaWeights
        let (ys, cs, yo): (Float, Float, Float) = colorSpace.range == .limited ? (219, 224, 16) : (255, 255, 0)
        func byte(_ v: Float) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
        var luma: [UInt8] = [], cb: [UInt8] = [], cr: [UInt8] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let c = image.color(x, y)
                luma.append(byte(yo + ys * (kr * c.x + kg * c.y + kb * c.z)))
            }
        }
        // Each chroma sample: the mean color of the pixels it covers (2x2, 2x1 or 1x1).
        let (across, down) = chroma == .c420 ? (2, 2) : chroma == .c422 ? (2, 1) : (1, 1)
        for y in stride(from: 0, to: image.height, by: down) {
            for x in stride(from: 0, to: image.width, by: across) {
                var sum = SIMD4<Float>.zero
                for (dx, dy) in [(0, 0), (across - 1, 0), (0, down - 1), (across - 1, down - 1)] {
                    sum += image.color(min(x + dx, image.width - 1), min(y + dy, image.height - 1))
                }
                let c = sum / 4
                let l = kr * c.x + kg * c.y + kb * c.z
                cb.append(byte(128 + cs * (c.z - l) / (2 * (1 - kb))))
                cr.append(byte(128 + cs * (c.x - l) / (2 * (1 - kr))))
            }
        }
        return luma + cb + cr
    }

    /// `clamp(M * c + offset)` for every pixel.
    static func apply(_ m: ColorMatrix, to image: Image, clamp: Bool = true) -> Image {
        Image(width: image.width, height: image.height) { x, y in
            let c = image.color(x, y)
            let rows = m.rows
            var out = SIMD4<Float>(0, 0, 0, 0)
            for i in 0..<4 {
                out[i] = rows[i][0] * c[0] + rows[i][1] * c[1] + rows[i][2] * c[2] + rows[i][3] * c[3] + m.offset[i]
            }
            return clamp ? out.clamped(lowerBound: .zero, upperBound: .one) : out
        }
    }

    /// Each block of `n` x `n` pixels takes the pixel at the block's center.
    static func pixellate(_ image: Image, block n: Int) -> Image {
        Image(width: image.width, height: image.height) { x, y in
            let cx = min((x / n) * n + n / 2, image.width - 1), cy = min((y / n) * n + n / 2, image.height - 1)
            return image.color(cx, cy)
        }
    }

    /// The cropped part of an image.
    static func crop(_ image: Image, x: Int, y: Int, width: Int, height: Int) -> Image {
        Image(width: width, height: height) { px, py in image.color(x + px, y + py) }
    }

    /// A Gaussian of deviation `sigma`, sampled at whole pixels out to
    /// 3 deviations and normalized; horizontal then vertical, every channel,
    /// a pixel past an edge reading the edge pixel.
    static func blur(_ image: Image, sigma: Float) -> Image {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var weights = (-radius...radius).map { i in exp(-Float(i * i) / (2 * sigma * sigma)) }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / total }
        let (w, h) = (image.width, image.height)
        func pass(_ source: [SIMD4<Float>], dx: Int, dy: Int) -> [SIMD4<Float>] {
            var out = [SIMD4<Float>](repeating: .zero, count: w * h)
            for y in 0..<h {
                for x in 0..<w {
                    var sum = SIMD4<Float>.zero
                    for (k, weight) in weights.enumerated() {
                        let sx = min(max(x + (k - radius) * dx, 0), w - 1), sy = min(max(y + (k - radius) * dy, 0), h - 1)
                        sum += weight * source[sy * w + sx]
                    }
                    out[y * w + x] = sum
                }
            }
            return out
        }
        let colors = (0..<h).flatMap { y in (0..<w).map { x in image.color(x, y) } }
        let result = pass(pass(colors, dx: 1, dy: 0), dx: 0, dy: 1)
        return Image(width: w, height: h) { x, y in result[y * w + x] }
    }

    /// Unsharp mask: `c + amount * (c - blur(c))` on R, G and B, clamped; alpha kept.
    static func sharpen(_ image: Image, amount: Float, sigma: Float) -> Image {
        let blurred = blur(image, sigma: sigma)
        return Image(width: image.width, height: image.height) { x, y in
            let c = image.color(x, y), b = blurred.color(x, y)
            let rgb = (SIMD3(c.x, c.y, c.z) + amount * (SIMD3(c.x, c.y, c.z) - SIMD3(b.x, b.y, b.z))).clamped(lowerBound: .zero, upperBound: .one)
            return SIMD4(rgb, c.w)
        }
    }

    /// A `size` x `size` kernel (rows top first) over R, G and B, divided by
    /// `divisor`, edges clamped, the result clamped; alpha kept.
    static func convolve(_ image: Image, kernel: [Float], divisor: Float) -> Image {
        let size = kernel.count == 25 ? 5 : 3, half = size / 2
        return Image(width: image.width, height: image.height) { x, y in
            var sum = SIMD3<Float>.zero
            for ky in 0..<size {
                for kx in 0..<size {
                    let c = image.color(min(max(x + kx - half, 0), image.width - 1), min(max(y + ky - half, 0), image.height - 1))
                    sum += kernel[ky * size + kx] / divisor * SIMD3(c.x, c.y, c.z)
                }
            }
            return SIMD4(sum.clamped(lowerBound: .zero, upperBound: .one), image.color(x, y).w)
        }
    }

    /// `filtered` inside the rectangle (left, top, right, bottom in pixels),
    /// `original` outside, fading in over `feather` pixels inside the edge.
    static func region(original: Image, filtered: Image, rect: SIMD4<Float>, feather: Float) -> Image {
        Image(width: original.width, height: original.height) { x, y in
            let px = Float(x) + 0.5, py = Float(y) + 0.5
            let inside = min(px - rect.x, rect.z - px, py - rect.y, rect.w - py)
            let mask: Float = feather > 0 ? min(max(inside / feather, 0), 1) : (inside >= 0 ? 1 : 0)
            return original.color(x, y) * (1 - mask) + filtered.color(x, y) * mask
        }
    }
}
