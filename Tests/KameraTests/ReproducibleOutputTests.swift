import Foundation
import XCTest

/// With SOURCE_DATE_EPOCH set (the reproducible-builds convention), two runs
/// of the same job write the same bytes, for every kind of output: the date
/// in a still's EXIF and PNG text and a recording's creation time is that
/// one, in UTC, and the containers leave out what changes from run to run.
final class ReproducibleOutputTests: KameraProcessTestCase {
    func testTwoRunsWriteTheSameBytes() throws {
        let jobs: [(output: String, arguments: [String])] = [
            ("still.png", ["--frames", "1"]), ("still.jpg", ["--frames", "1"]), ("clip.y4m", ["--frames", "10"]),
            ("clip.mp4", ["--frames", "10"]), ("clip.mov", ["--frames", "10"]), ("clip.mkv", ["--frames", "10"]),
            ("clip.webm", ["--frames", "10"]), ("luma.jsonl", ["--frames", "10", "--analyze", "luma", "--metadata", "luma.jsonl"]),
        ]
        var first: [String: Data] = [:]
        for round in 0..<2 {
            for (output, arguments) in jobs {
                let target = output.hasSuffix(".jsonl") ? ["-o", "luma-%d.png"] : ["-o", output]
                let words = (["render", "--input-size", "64x48", "--size", "64x64", "-q"] + arguments + target).map { "'\($0)'" }.joined(separator: " ")
                let result = try KameraProcess.shell("SOURCE_DATE_EPOCH=1700000000 '\(KameraProcess.binary.path)' \(words)", in: run.folder)
                XCTAssertEqual(result.status, 0, "\(output): \(result.stderr)")
                let bytes = try Data(contentsOf: run.folder.appendingPathComponent(output))
                if round == 0 { first[output] = bytes } else { XCTAssertEqual(bytes, first[output], "\(output) differs between two runs") }
            }
        }
        let png = try XCTUnwrap(first["still.png"])
        XCTAssertNotNil(png.range(of: Data("2023-11-14T22:13:20.00+00:00".utf8)), "the PNG's creation time is SOURCE_DATE_EPOCH's, in UTC")
        let probe = try KameraProcess.shell("ffprobe -v error -show_entries format_tags=creation_time -of csv=p=0 clip.mp4", in: run.folder)
        XCTAssertTrue(probe.output.hasPrefix("2023-11-14T22:13:20"), probe.output + probe.stderr)
    }

    /// `--strip`: no metadata at all, and so the same bytes without
    /// SOURCE_DATE_EPOCH: the PNG has no text or EXIF chunk, the JPEG no EXIF,
    /// the recordings no creation time and no Kamera or library version.
    func testStripLeavesTheMetadataOut() throws {
        var first: [String: Data] = [:]
        let names = ["s.png", "s.jpg", "s.mp4", "s.mkv"]
        for round in 0..<2 {
            let result = try run.run(["render", "--strip", "--frames", "2", "--size", "64x64", "-q", "-o", "s.mp4", "-o", "s.mkv"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let still = try run.run(["render", "--strip", "--size", "64x64", "-q", "-o", "s.png", "-o", "s.jpg"])
            XCTAssertEqual(still.status, 0, still.stderr)
            for name in names {
                let bytes = try Data(contentsOf: run.folder.appendingPathComponent(name))
                if round == 0 { first[name] = bytes } else { XCTAssertEqual(bytes, first[name], "\(name) differs between two runs") }
                for text in ["Kamera", "tEXt", "eXIf", "Exif", "Creation", "Lavf5", "Lavf6"] {
                    XCTAssertNil(bytes.range(of: Data(text.utf8)), "\(name) holds \(text)")
                }
            }
            if round == 0 { sleep(1) }  // a date, were one written, would differ
        }
        for name in ["s.mp4", "s.mkv"] {
            let probe = try KameraProcess.shell("ffprobe -v error -show_entries format_tags=creation_time,encoder -of csv=p=0 \(name)", in: run.folder)
            XCTAssertFalse(probe.output.contains("20"), "\(name): \(probe.output)")
        }
    }
}
