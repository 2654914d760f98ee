import Capture
import Foundation
import Output
import XCTest

/// PNG encoding levels and the encoder threads: every image decodes to the
/// exact pixels given (PNG is lossless: tolerance 0), in order, whatever the
/// level or the number of threads.
final class PNGOutputTests: ScratchFolderTestCase {

    /// A picture with smooth areas and noise, different for each `seed`.
    func picture(width: Int, height: Int, seed: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var state = UInt32(seed &* 7919 &+ 1)
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_664_525 &+ 1_013_904_223
                let i = (y * width + x) * 4
                pixels[i] = UInt8((x * 255) / max(1, width - 1))
                pixels[i + 1] = UInt8((y * 3 + seed * 17) % 256)
                pixels[i + 2] = x < width / 2 ? UInt8(seed % 256) : UInt8(state >> 24)
            }
        }
        return pixels
    }

    func decoded(_ path: String) throws -> [UInt8] {
        let frame = try XCTUnwrap(try ImageSource(path: path).nextFrame())
        let plane = frame.planes[0]
        var pixels: [UInt8] = []
        for y in 0..<frame.height {
            pixels += plane.bytes[(y * plane.bytesPerRow)..<(y * plane.bytesPerRow + frame.width * 4)]
        }
        return pixels
    }

    /// A camera-like patch: flat colors with sensor noise (±4), on which row
    /// filters (differences of noise) make larger files than none.
    func noisyPicture(width: Int, height: Int) -> [UInt8] {
        var state: UInt32 = 7
        return (0..<width * height * 4).map { i in
            state = state &* 1_664_525 &+ 1_013_904_223
            let channel = i % 4
            guard channel < 3 else { return 255 }
            return UInt8(clamping: 90 + channel * 40 + Int(state >> 29) - 4)
        }
    }

    func testEveryCompressionIsLosslessAndSmallerTakesLessRoom() throws {
        for (name, width, height, pixels) in [("mixed", 97, 61, picture(width: 97, height: 61, seed: 3)),
                                              ("noisy", 120, 80, noisyPicture(width: 120, height: 80))] {
            try checkCompressions(name, width: width, height: height, pixels: pixels)
        }
    }

    func checkCompressions(_ name: String, width: Int, height: Int, pixels: [UInt8]) throws {
        var sizes: [PNGCompression: Int] = [:]
        for compression in PNGCompression.allCases {
            let path = folder.appendingPathComponent("\(compression).png").path
            let output = try PNGOutput(try OutputPattern(path), compression: compression)
            try pixels.withUnsafeBytes { try output.write($0, width: width, height: height, index: 0) }
            try output.finish()
            XCTAssertEqual(try decoded(path), pixels, "\(compression)")
            sizes[compression] = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        }
        print("PNG sizes of a \(width)x\(height) \(name) picture: \(PNGCompression.allCases.map { "\($0) \(sizes[$0]!) bytes" }.joined(separator: ", "))")
        XCTAssertLessThanOrEqual(sizes[.small]!, sizes[.default]!, name)
        if name == "noisy" {
            // Written as RGB (opaque), the 120x80 noise alone came out 4 % larger at
            // libdeflate's level 4 than at level 1 (15,790 against 15,164 bytes).
            XCTAssertLessThan(Double(sizes[.default]!), Double(sizes[.fast]!) * 1.05, name)
        } else {
            XCTAssertLessThan(sizes[.default]!, sizes[.fast]!, name)
        }
    }

    /// An opaque picture is written as RGB (IHDR color type 2), one with any
    /// alpha below 255 as RGBA (6); both decode to the exact pixels given.
    func testOpaquePicturesAreRGBAndOthersKeepTheirAlpha() throws {
        var translucent = picture(width: 33, height: 9, seed: 5)
        translucent[4 * 100 + 3] = 254
        for (name, pixels, colorType) in [("opaque", picture(width: 33, height: 9, seed: 5), UInt8(2)), ("translucent", translucent, 6)] {
            for compression in [PNGCompression.fast, .default] {
                let path = folder.appendingPathComponent("\(name)-\(compression).png").path
                let output = try PNGOutput(try OutputPattern(path), compression: compression)
                try pixels.withUnsafeBytes { try output.write($0, width: 33, height: 9, index: 0) }
                try output.finish()
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                XCTAssertEqual(bytes[25], colorType, "\(name) \(compression): IHDR color type")
                XCTAssertEqual(try decoded(path), pixels, "\(name) \(compression)")
            }
        }
    }

    /// A sequence through two encoder threads: each file holds its own frame.
    func testEncoderThreadsWriteEachFrameWholeUnderItsOwnName() throws {
        let (width, height) = (64, 40)
        let pattern = try OutputPattern(folder.appendingPathComponent("f-%02d.png").path)
        let output = try PNGOutput(pattern, frames: 12, encoderThreads: 2)
        var order: [String] = []
        output.onWrite = { order.append(($0 as NSString).lastPathComponent) }
        for index in 0..<12 {
            let pixels = picture(width: width, height: height, seed: index)
            try pixels.withUnsafeBytes { try output.write($0, width: width, height: height, index: index) }
        }
        try output.finish()
        XCTAssertEqual(output.written, 12)
        XCTAssertEqual(order, (0..<12).map { String(format: "f-%02d.png", $0) }, "written in frame order")
        for index in 0..<12 {
            XCTAssertEqual(try decoded(pattern.path(for: index)), picture(width: width, height: height, seed: index), "frame \(index)")
        }
    }

    /// A stream takes images one after another: through encoder threads they
    /// still come in frame order, each whole.
    func testEncoderThreadsKeepAStreamInOrder() throws {
        let (width, height) = (33, 20)
        let path = folder.appendingPathComponent("stream.fifo").path
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        nonisolated(unsafe) var received = Data()
        let done = DispatchSemaphore(value: 0)
        Thread {
            // A blocking open: it waits for the writer, then reads to its close.
            let fd = open(path, O_RDONLY)
            var chunk = [UInt8](repeating: 0, count: 65536)
            while fd >= 0 {
                let n = read(fd, &chunk, chunk.count)
                if n <= 0 { break }
                received.append(contentsOf: chunk[0..<n])
            }
            if fd >= 0 { close(fd) }
            done.signal()
        }.start()
        let output = try PNGOutput(try OutputPattern(path), frames: 5, encoderThreads: 2)
        for index in 0..<5 {
            let pixels = picture(width: width, height: height, seed: index)
            try pixels.withUnsafeBytes { try output.write($0, width: width, height: height, index: index) }
        }
        try output.finish()
        done.wait()
        // Split the stream at each PNG signature and decode the images in turn.
        let signature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var starts: [Int] = []
        var from = received.startIndex
        while let r = received.range(of: signature, in: from..<received.endIndex) {
            starts.append(r.lowerBound)
            from = r.upperBound
        }
        XCTAssertEqual(starts.count, 5)
        for (n, start) in starts.enumerated() {
            let end = n + 1 < starts.count ? starts[n + 1] : received.endIndex
            let file = folder.appendingPathComponent("part-\(n).png")
            try received[start..<end].write(to: file)
            XCTAssertEqual(try decoded(file.path), picture(width: width, height: height, seed: n), "image \(n) of the stream")
        }
    }
}
