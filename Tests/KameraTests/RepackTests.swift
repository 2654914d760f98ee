import Capture
import Foundation
import Pixels
import XCTest

/// Formats Kamera repacks into its own (`RepackedFormat`): each against a
/// reference the test builds its own way from a native frame (byte orders
/// laid out by index here; RGB565 and deep gray widened by the rounded
/// formulas), exactly; then raw files of each through `kamera render`, whose
/// pictures equal the native file's.
final class RepackTests: KameraProcessTestCase {
    let sizes = [(64, 36), (63, 35), (2, 2), (1, 1)]

    /// The bytes of `format` for the frame `native` holds, laid out plane by plane, tight.
    func wireBytes(_ format: RepackedFormat, from native: FrameBuffer) -> [UInt8] {
        let w = native.width, h = native.height, pairs = (w + 1) / 2
        let p0 = Array(native.planes[0].bytes), p1 = native.planes.count > 1 ? Array(native.planes[1].bytes) : []
        let s0 = native.planes[0].bytesPerRow, s1 = native.planes.count > 1 ? native.planes[1].bytesPerRow : 0
        var out: [UInt8] = []
        switch format {
        case .uyvy, .yvyu, .vyuy:
            let order: [Int] = format == .uyvy ? [1, 0, 3, 2] : format == .yvyu ? [0, 3, 2, 1] : [3, 0, 1, 2]  // YUYV index at each wire byte
            for r in 0..<h { for i in 0..<pairs { for k in order { out.append(p0[r * s0 + 4 * i + k]) } } }
        case .nv16, .nv61:
            for r in 0..<h { for x in 0..<w { out.append(p0[r * s0 + 2 * x]) } }
            let uv = format == .nv16 ? [1, 3] : [3, 1]
            for r in 0..<h { for i in 0..<pairs { for k in uv { out.append(p0[r * s0 + 4 * i + k]) } } }
        case .yuv422p:
            for r in 0..<h { for x in 0..<w { out.append(p0[r * s0 + 2 * x]) } }
            for k in [1, 3] { for r in 0..<h { for i in 0..<pairs { out.append(p0[r * s0 + 4 * i + k]) } } }
        case .nv21:
            out = Array(p0)
            for r in 0..<(h + 1) / 2 { for i in 0..<pairs { out += [p1[r * s1 + 2 * i + 1], p1[r * s1 + 2 * i]] } }
        case .yu12, .yv12:
            out = Array(p0)
            let first = format == .yu12 ? 0 : 1
            for k in [first, 1 - first] { for r in 0..<(h + 1) / 2 { for i in 0..<pairs { out.append(p1[r * s1 + 2 * i + k]) } } }
        case .bgr24:
            for r in 0..<h { for x in 0..<w { for k in [2, 1, 0] { out.append(p0[r * s0 + 3 * x + k]) } } }
        case .rgbx, .bgrx, .xbgr, .abgr, .argb, .xrgb:
            // The RGBA index of each byte in memory; -1: unused, filled with a value that must not show.
            let order = [RepackedFormat.rgbx: [0, 1, 2, -1], .bgrx: [2, 1, 0, -1], .xbgr: [-1, 2, 1, 0], .abgr: [3, 2, 1, 0], .argb: [3, 0, 1, 2], .xrgb: [-1, 0, 1, 2]][format]!
            for r in 0..<h { for x in 0..<w { for k in order { out.append(k < 0 ? 0x5A : p0[r * s0 + 4 * x + k]) } } }
        default:
            XCTFail("\(format) is made from words or a mosaic, not from a native frame")
        }
        return out
    }

    func testByteOrdersRepackToTheNativeFrameExactly() throws {
        for format in RepackedFormat.allCases where ![.rgb565, .y10, .y12, .y16].contains(format) && format.mosaic == nil {
            for (w, h) in sizes {
                let (_, native) = randomFrame(format.native, width: w, height: h)
                if format.rawValue.contains("x") {
                    // No alpha on the wire: the frame is opaque.
                    for i in stride(from: 3, to: native.allBytes.count, by: 4) { native.allBytes[i] = 255 }
                }
                let wire = wireBytes(format, from: native)
                XCTAssertEqual(wire.count, format.frameSize(width: w, height: h), "\(format) \(w)x\(h)")
                let target = FrameBuffer(format: format.native, width: w, height: h)
                wire.withUnsafeBytes { format.repack(format.planes(in: $0, width: w, height: h), into: target) }
                // Pixels only: a last odd column's second luma in 4:2:2 is padding.
                XCTAssertEqual(Array(target.allBytes), Array(native.allBytes).enumerated().map { i, b in
                    format.native == .yuyv && w % 2 == 1 && i % native.planes[0].bytesPerRow == native.planes[0].bytesPerRow - 2 ? target.allBytes[i] : b
                }, "\(format) \(w)x\(h)")
            }
        }
    }

    /// UYVY, YVYU, VYUY, NV21, NV16, NV61, YU12, YV12, 422P, BGR24 and the
    /// 32-bit RGB orders for a GPU that converts YUV:
    /// handed on as they are (`FrameRepacker` copies the rows of a file's
    /// frame, no repack), and the layouts Kamera makes and reads of them agree
    /// with the test's own byte orders: the converter's test frames and the analysers' luma.
    func testOtherYUVLayoutsAreHandedOnAsTheyAreForTheGPU() throws {
        var onGPU = ISPSettings()
        onGPU.onGPU = true
        let formats: [(RepackedFormat, PixelFormat)] = [(.uyvy, .uyvy), (.yvyu, .yvyu), (.vyuy, .vyuy), (.nv21, .nv21), (.nv16, .nv16), (.nv61, .nv61),
                                                        (.yu12, .yu12), (.yv12, .yv12), (.yuv422p, .yuv422p), (.bgr24, .bgr24), (.rgbx, .rgbx), (.bgrx, .bgrx),
                                                        (.xbgr, .xbgr), (.abgr, .abgr), (.argb, .argb), (.xrgb, .xrgb)]
        for (w, h) in sizes {
            let rgba = FrameBuffer(format: .rgba, width: w, height: h)
            for i in 0..<rgba.allBytes.count { rgba.allBytes[i] = UInt8(truncatingIfNeeded: i &* 37 &+ i / 7) }
            for (wire, pixels) in formats {
                let (nativeFrame, native) = randomFrame(wire.native, width: w, height: h)
                let madeNative = FrameBuffer(format: wire.native, width: w, height: h)
                FormatConverter.convert(rgba: rgba, to: madeNative, colorSpace: .bt601Limited)
                var nativeLuma = [UInt8](repeating: 0, count: w * h)
                LumaCopy.copy(nativeFrame, into: &nativeLuma)
                let repacker = FrameRepacker(format: wire, isp: onGPU)
                XCTAssertEqual(repacker.output, pixels, "\(wire)")
                XCTAssertEqual(repacker.path, "converted on the GPU as it is")
                XCTAssertEqual(FrameRepacker(format: wire).output, wire.native, "\(wire) on the CPU")
                let bytes = wireBytes(wire, from: native)
                let target = FrameBuffer(format: pixels, width: w, height: h)
                bytes.withUnsafeBytes { _ = repacker.repack(wire.planes(in: $0, width: w, height: h), into: target) }
                XCTAssertEqual(Array(target.allBytes), bytes, "\(wire) \(w)x\(h): copied as it is")
                var luma = [UInt8](repeating: 0, count: w * h)
                LumaCopy.copy(target.frame(sequence: 0, timestamp: 0), into: &luma)
                XCTAssertEqual(luma, nativeLuma, "\(wire) \(w)x\(h): luma")
                let made = FrameBuffer(format: pixels, width: w, height: h)
                FormatConverter.convert(rgba: rgba, to: made, colorSpace: .bt601Limited)
                var want = wireBytes(wire, from: madeNative)
                if let unused = wire.rawValue.firstIndex(of: "x").map({ wire.rawValue.distance(from: wire.rawValue.startIndex, to: $0) }) {
                    // The converter writes the unused byte opaque.
                    for i in stride(from: unused, to: want.count, by: 4) { want[i] = 255 }
                }
                XCTAssertEqual(Array(made.allBytes), want, "\(wire) \(w)x\(h): test frames")
            }
        }
    }

    /// RGB565 and 10- to 16-bit gray for a GPU that converts YUV: handed on
    /// as they are; the analysers' luma is that of the repacked frame, and
    /// test frames hold each channel (gray: the luma) rounded to its bits.
    func testRGB565AndDeepGrayAreHandedOnAsTheyAreForTheGPU() throws {
        var onGPU = ISPSettings()
        onGPU.onGPU = true
        for format in [RepackedFormat.rgb565, .y10, .y12, .y16] {
            let repacker = FrameRepacker(format: format, isp: onGPU)
            let pixels = try XCTUnwrap(format.readOnGPU)
            XCTAssertEqual(repacker.output, pixels)
            XCTAssertEqual(repacker.output.rawValue, format.rawValue)
            for (w, h) in sizes {
                var seed: UInt32 = 99
                let bytes: [UInt8] = (0..<(w * h * 2)).map { _ in seed = seed &* 1_664_525 &+ 1_013_904_223; return UInt8(truncatingIfNeeded: seed >> 20) }
                let target = FrameBuffer(format: pixels, width: w, height: h)
                bytes.withUnsafeBytes { _ = repacker.repack(format.planes(in: $0, width: w, height: h), into: target) }
                XCTAssertEqual(Array(target.allBytes), bytes, "\(format) \(w)x\(h): copied as it is")
                let native = FrameBuffer(format: format.native, width: w, height: h)
                bytes.withUnsafeBytes { format.repack(format.planes(in: $0, width: w, height: h), into: native) }
                var luma = [UInt8](repeating: 0, count: w * h), nativeLuma = luma
                LumaCopy.copy(target.frame(sequence: 0, timestamp: 0), into: &luma)
                LumaCopy.copy(native.frame(sequence: 0, timestamp: 0), into: &nativeLuma)
                XCTAssertEqual(luma, nativeLuma, "\(format) \(w)x\(h): luma")
                let rgba = FrameBuffer(format: .rgba, width: w, height: h)
                for i in 0..<rgba.allBytes.count { rgba.allBytes[i] = UInt8(truncatingIfNeeded: i &* 37 &+ i / 7) }
                let made = FrameBuffer(format: pixels, width: w, height: h)
                let space = YUVColorSpace(matrix: .bt601, range: .full)
                FormatConverter.convert(rgba: rgba, to: made, colorSpace: space)
                let want: [UInt8] = (0..<(w * h)).flatMap { p -> [UInt8] in
                    func bits(_ v: UInt8, _ top: Int) -> Int { Int((Double(v) * Double(top) / 255).rounded()) }
                    let (r, g, b) = (rgba.allBytes[p * 4], rgba.allBytes[p * 4 + 1], rgba.allBytes[p * 4 + 2])
                    let word = format == .rgb565 ? bits(r, 31) << 11 | bits(g, 63) << 5 | bits(b, 31)
                        : bits(space.yuv(r: r, g: g, b: b).y, format == .y10 ? 1023 : format == .y12 ? 4095 : 65535)
                    return [UInt8(word & 0xFF), UInt8(word >> 8)]
                }
                XCTAssertEqual(Array(made.allBytes), want, "\(format) \(w)x\(h): test frames")
            }
        }
    }

    /// Each format is found by its name and its V4L2 code as `v4l2-ctl`
    /// prints it (without the padding space), each code names one format,
    /// ffmpeg's names (`-pix_fmt`) and the others users type find theirs, and
    /// a code typed in lower case finds its format unless two codes differ in
    /// case only (pgAA, pGAA); a name of none is nil.
    func testFormatsAreFoundByNameCodeAndFFmpegName() {
        for format in RepackedFormat.allCases {
            XCTAssertEqual(RepackedFormat(name: format.name), format)
            XCTAssertEqual(RepackedFormat(name: format.fourcc.trimmingCharacters(in: .whitespaces)), format, format.fourcc)
            XCTAssertEqual(RepackedFormat(v4l2Code: format.fourcc), format)
            XCTAssertEqual(RepackedFormat.allCases.filter { $0.fourcc == format.fourcc }, [format])
            if !["pgAA", "pgCC"].contains(format.fourcc) {
                XCTAssertEqual(RepackedFormat(name: format.fourcc.lowercased()), format, format.fourcc)
            }
        }
        let ffmpeg: [String: RepackedFormat] = [
            "uyvy422": .uyvy, "yvyu422": .yvyu, "nv21": .nv21, "nv16": .nv16, "yuv420p": .yu12, "i420": .yu12, "yuv422p": .yuv422p,
            "bgr24": .bgr24, "rgb565le": .rgb565, "gray10le": .y10, "gray12le": .y12, "gray16le": .y16, "rgb0": .rgbx, "bgr0": .bgrx,
            "0bgr": .xbgr, "0rgb": .xrgb, "abgr": .abgr, "argb": .argb, "bayer_rggb8": .rggb8, "bayer_bggr16le": .bggr16,
            "bgr3": .bgr24, "bgr": .bgr24, "rgbp": .rgb565, "y16": .y16, "grey10": .y10, "gray10": .y10, "grey12": .y12,
            "gray12": .y12, "grey16": .y16, "gray16": .y16,
        ]
        for (name, format) in ffmpeg { XCTAssertEqual(RepackedFormat(name: name), format, name) }
        XCTAssertEqual(RepackedFormat(v4l2Code: "BGR4"), .bgrx)
        for name in ["yuyv", "bayer_yuyv", "bayer_", "", "rgb", "rgb32"] { XCTAssertNil(RepackedFormat(name: name), name) }
    }

    /// A driver's padded rows: chroma strides scale with the luma's (half for YU12's U and V).
    func testPaddedRowsScaleTheChromaStrides() {
        func strides(_ f: RepackedFormat) -> [Int] { f.planeStrides(width: 320, height: 180, bytesPerRow: 384).map { $0.stride * 1000 + $0.rows } }
        XCTAssertEqual(strides(.yu12), [384_180, 192_090, 192_090])
        XCTAssertEqual(strides(.nv21), [384_180, 384_090])
        XCTAssertEqual(strides(.nv16), [384_180, 384_180])
        XCTAssertEqual(strides(.uyvy), [640_180], "wider than the padding: the row's own bytes")
        // An odd width padded to 64: interleaved chroma pairs take the luma's stride, as V4L2 gives it,
        // not the 65 bytes that scaling by the odd row's rounded-up width (64/63) gave.
        func odd(_ f: RepackedFormat) -> [Int] { f.planeStrides(width: 63, height: 35, bytesPerRow: 64).map { $0.stride * 1000 + $0.rows } }
        XCTAssertEqual(odd(.nv21), [64_035, 64_018])
        XCTAssertEqual(odd(.nv61), [64_035, 64_035])
        XCTAssertEqual(odd(.yu12), [64_035, 32_018, 32_018])
    }

    func testRGB565AndDeepGrayWidenByTheRoundedFormula() throws {
        var worst = 0
        for format in [RepackedFormat.rgb565, .y10, .y12, .y16] {
            let (w, h) = (37, 9)
            var seed: UInt32 = 7
            var words: [UInt16] = (0..<(w * h)).map { _ in seed = seed &* 1_664_525 &+ 1_013_904_223; return UInt16(truncatingIfNeeded: seed >> 16) }
            let top = format == .y10 ? 1023 : format == .y12 ? 4095 : 65535
            if format != .rgb565 { words = words.map { UInt16(Int($0) % (top + 1)) } }
            words[0] = 0
            words[1] = format == .rgb565 ? 0xFFFF : UInt16(top)
            let bytes = words.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            let target = FrameBuffer(format: format.native, width: w, height: h)
            bytes.withUnsafeBytes { format.repack(format.planes(in: $0, width: w, height: h), into: target) }
            func widened(_ value: Int, _ max: Int) -> Int { Int((Double(value) * 255 / Double(max)).rounded()) }
            let want: [Int] = format == .rgb565
                ? words.flatMap { [widened(Int($0 >> 11), 31), widened(Int(($0 >> 5) & 63), 63), widened(Int($0 & 31), 31)] }
                : words.map { widened(Int($0), top) }
            let got = Array(target.allBytes).map(Int.init)
            XCTAssertEqual(got.count, want.count)
            let difference = zip(got, want).map { abs($0 - $1) }.max() ?? 0
            worst = max(worst, difference)
            XCTAssertLessThanOrEqual(difference, format == .rgb565 ? 1 : 0, "\(format)")
            XCTAssertEqual(Array(got.prefix(format == .rgb565 ? 6 : 2)), format == .rgb565 ? [0, 0, 0, 255, 255, 255] : [0, 255], "\(format): black and white")
        }
        print("RGB565 and 10-16-bit gray against the rounded formula: largest difference \(worst)")
    }

    /// Raw files through the command: each repacked format renders the same
    /// pixels as the native file it was laid out from, whether YUV becomes RGB
    /// on the CPU or in the shaders (which read the other YUV layouts and RGB
    /// orders as they are); a truncated one is refused.
    func testRawFilesRenderAsTheirNativeFrames() throws {
        let (w, h) = (64, 36)
        func render(_ name: String, format: String, bytes: [UInt8], conversion: String) throws -> [UInt8] {
            let file = run.folder.appendingPathComponent("\(name).raw")
            try Data(bytes + bytes).write(to: file)
            let result = try run.run(["render", "--input", file.path, "--format", format, "--input-size", "\(w)x\(h)", "--crop", "none",
                                      "--frames", "2", "--yuv-conversion", conversion, "-o", "\(name)-\(conversion)-%d.png", "-v"])
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            if let repacked = RepackedFormat(name: format), repacked.readOnGPU.map({ !$0.isMosaic }) == true {
                let path = conversion == "shader" ? "converted on the GPU as it is" : "repacked to \(repacked.native.name)"
                XCTAssertTrue(result.stderr.contains(path), "\(name) \(conversion): \(result.stderr)")
            }
            let frame = try XCTUnwrap(try ImageSource(path: run.folder.appendingPathComponent("\(name)-\(conversion)-1.png").path).nextFrame())
            return Array(frame.planes[0].bytes)
        }
        for conversion in ["cpu", "shader"] {
            for native in [PixelFormat.yuyv, .nv12, .rgb24, .rgba] {
                let (nativeFrame, buffer) = randomFrame(native, width: w, height: h)
                if native == .rgba {
                    // Opaque, as the formats with an unused byte read.
                    for i in stride(from: 3, to: buffer.allBytes.count, by: 4) { buffer.allBytes[i] = 255 }
                }
                let want = try render(native.name, format: native.name, bytes: Array(buffer.allBytes), conversion: conversion)
                if native.isYUV {
                    XCTAssertClose(Image(width: w, height: h, pixels: want), CPUReference.decode(nativeFrame), tolerance: 2, "\(native) \(conversion)")
                }
                for format in RepackedFormat.allCases where format.native == native && format != .rgb565 && format.mosaic == nil {
                    let got = try render(format.name, format: format.fourcc, bytes: wireBytes(format, from: buffer), conversion: conversion)
                    XCTAssertTrue(got == want, "\(format) (given as \(format.fourcc)) renders as \(native), \(conversion)")
                }
            }
            // RGB565: the repack widens by repeating bits, the GPU by v * 255 / 31 rounded; within 1 of the formula.
            // Deep gray: words of the depth and some above it (white), within 1 of v * 255 / top rounded.
            for (format, top) in [("RGBP", 0), ("Y10", 1023), ("Y12", 4095), ("Y16", 65535)] {
                var seed: UInt32 = 5
                let words: [Int] = (0..<(w * h)).map { i in
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    return top == 0 || i % 17 == 0 ? Int(seed >> 16) : Int(seed >> 16) % (top + 1)
                }
                let got = try render("w-\(format)", format: format, bytes: words.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, conversion: conversion)
                let want = Image(width: w, height: h) { x, y in
                    let v = words[y * w + x]
                    if top > 0 { let g = Float(min(v, top)) / Float(top); return SIMD4(g, g, g, 1) }
                    return SIMD4(Float(v >> 11) / 31, Float((v >> 5) & 63) / 63, Float(v & 31) / 31, 1)
                }
                XCTAssertClose(Image(width: w, height: h, pixels: got), want, tolerance: 1, "\(format) \(conversion)")
            }
        }
        let file = run.folder.appendingPathComponent("short.raw")
        try Data(count: RepackedFormat.uyvy.frameSize(width: w, height: h) - 1).write(to: file)
        try run.assertFails(["render", "--input", file.path, "--format", "uyvy", "--input-size", "\(w)x\(h)", "-o", "short.png"],
                            mentioning: ["short.raw", "less than one 64x36 uyvy frame", "--format"])
        try run.assertFails(["render", "--format", "uyvy", "-o", "pattern.png"], mentioning: ["uyvy", "raw files", "the test pattern takes yuyv"])
        try run.assertFails(["render", "--input", file.path, "--format", "uyvz", "--input-size", "\(w)x\(h)", "-o", "x.png"],
                            mentioning: ["uyvz", "not supported", "uyvy, yvyu"])
    }
}
