import Messages
import Render
import Capture
import Foundation

/// Checks each rendered frame against a golden PNG (`--expect`), for CI:
/// every channel of every pixel within the tolerance. On a mismatch it writes
/// a diff image and remembers the failure; `finish` reports them all.
public final class ExpectationSink: FrameSink {
    public let golden: OutputPattern
    public let tolerance: Int
    /// Where the diff image of frame N goes.
    public let diffs: OutputPattern
    /// First frame number in the golden names (`--frames A..B` starts at A).
    public var firstNumber = 0
    public private(set) var failures: [String] = []
    public private(set) var checked = 0
    /// Hears the result of each frame, one line.
    public var onResult: ((String) -> Void)?

    public init(golden: OutputPattern, tolerance: Int, diffs: OutputPattern) {
        self.golden = golden
        self.tolerance = tolerance
        self.diffs = diffs
    }

    public func consume(_ frame: RenderedFrame) throws {
        let number = firstNumber + frame.index
        let path = golden.path(for: number)
        guard FileManager.default.fileExists(atPath: path) else {
            throw OutputError(.expect, "\(path)", because: "no such file", "make it first by rendering to \(path)")
        }
        let expected = try ImageSource(path: path)
        guard let image = try expected.nextFrame() else { throw OutputError(.expect, "\(path)", because: "holds no image") }
        guard image.width == frame.width, image.height == frame.height else {
            throw OutputError(.expect, "\(path)", because: "it is \(image.width)x\(image.height) but the render is \(frame.width)x\(frame.height)", "render at \(image.width)x\(image.height) or make the golden again")
        }
        let pixels = try frame.pixels()
        let comparison = ImageComparison(expected: image.planes[0].bytes, actual: pixels, width: frame.width, height: frame.height, tolerance: tolerance)
        checked += 1
        if comparison.matches {
            // A diff image from an earlier failing run would say otherwise.
            try? FileManager.default.removeItem(atPath: diffs.path(for: number))
            onResult?("\(path): match, \(comparison.summary)")
            return
        }
        let diffPath = diffs.path(for: number)
        let diff = ImageComparison.diffImage(expected: image.planes[0].bytes, actual: pixels, width: frame.width, height: frame.height, tolerance: tolerance)
        // The mismatch is reported whether or not its picture can be written.
        let line: String
        do {
            try diff.withUnsafeBytes { try PNGWriter.write($0, width: frame.width, height: frame.height, to: diffPath) }
            line = "\(path): \(comparison.summary); differences in \(diffPath)"
        } catch {
            line = "\(path): \(comparison.summary); the diff image could not be written (\(error))"
        }
        failures.append(line)
        onResult?(line)
    }

    /// Throws the mismatches, one line each, after all frames were checked.
    public func finish() throws {
        guard !failures.isEmpty else { return }
        throw ExpectationFailure(lines: failures, checked: checked)
    }
}

/// Frames that did not match their golden images.
public struct ExpectationFailure: Error, CustomStringConvertible {
    public var lines: [String]
    public var checked: Int
    public var description: String {
        lines.count == 1 ? lines[0] : "\(lines.count) of \(checked) frames differ from their golden images: " + lines.joined(separator: "; ")
    }
}
