import Foundation
import XCTest

/// What a recording, a Y4M file and `--metadata` leave when the disk fills:
/// whole frames, fragments and lines only, and a message whose count is what
/// a reader decodes. The full disk is a small tmpfs mounted in a mount
/// namespace of the test's own (`unshare`), so no root is needed; files are
/// read back by Debian's ffprobe.
final class FullDiskTests: KameraProcessTestCase {
    private func sh(_ script: String) throws -> KameraProcess.Result {
        try KameraProcess.shell("K='\(KameraProcess.binary.path)'\n" + script, in: run.folder)
    }

    /// Runs `script` in a mount namespace of its own with a tmpfs of `size` at `full/`
    /// (16 KiB fills with a recording in about 2 s of the test pattern at 320x320).
    private func onFullDisk(_ script: String, size: String = "16k") throws -> KameraProcess.Result {
        try FileManager.default.createDirectory(at: run.folder.appendingPathComponent("full"), withIntermediateDirectories: true)
        let inner = "set -e; mount -t tmpfs -o size=\(size) kamera-full full; cd full; set +e\n" + script
        let result = try sh("unshare --map-root-user --mount bash -c \(VMBoot.shellQuoted("K='\(KameraProcess.binary.path)'\n" + inner))")
        XCTAssertFalse(result.stderr.contains("unshare:"), "a mount namespace is needed for the full disk: \(result.stderr)")
        return result
    }

    /// The number before `word` in `text` (`holds the 316 frames` → 316).
    private func count(before word: String, in text: String) -> Int? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "(" })
        guard let at = words.firstIndex(where: { $0.hasPrefix(word) }), at > words.startIndex else { return nil }
        return Int(words[words.index(before: at)])
    }

    /// The disk fills during each recording: the message's count is what
    /// ffprobe decodes from the file left, cut back to its last whole
    /// fragment (cluster); with `--faststart` nothing is left and the
    /// message says so, an older file kept. Before, the counts exceeded
    /// what ffprobe decoded (mp4 334 vs 300) and --faststart claimed a file
    /// that did not exist.
    func testAFullDiskLeavesWhatTheMessageSays() throws {
        // FFV1's frames are large: 32 KiB holds a few of them.
        for (name, options, size) in [("rec.mp4", "", "16k"), ("rec.mkv", "", "16k"), ("rec.webm", "", "16k"), ("lossless.mkv", "--codec ffv1", "32k")] {
            let result = try onFullDisk("$K render --frames 400 --size 320x320 -o \(name) \(options); echo \"exit $?\"; ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 \(name)", size: size)
            XCTAssertTrue(result.output.contains("exit 1"), result.output + result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("kamera: error: \(name): ") && result.stderr.contains("cannot write: No space left on device; \(name) holds the "), result.stderr)
            let said = try XCTUnwrap(count(before: "frames", in: result.stderr), result.stderr)
            let decoded = Int(result.output.split(separator: "\n").last.map(String.init) ?? "")
            XCTAssertEqual(decoded, said, "\(name): \(result.stderr)")
            XCTAssertGreaterThan(said, 0, name)
        }
        let faststart = try onFullDisk("""
            $K render --frames 1 --size 16x16 -q -o fs.mp4 --faststart
            $K render --frames 400 --size 320x320 -o fs.mp4 --faststart; echo "exit $?"
            ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 fs.mp4
            """)
        XCTAssertTrue(faststart.stderr.contains("nothing recorded was kept: fs.mp4 is as it was before the run (with --faststart a recording appears only whole)"), faststart.stderr)
        XCTAssertEqual(faststart.output.split(separator: "\n").last, "1", "the older fs.mp4 kept: \(faststart.output)")
    }

    /// Y4M and `--metadata` on a full disk: whole frames and whole lines only,
    /// as many as the message says. Before, a partial third frame followed
    /// "2 frames … each whole" (and Kamera refused its own file), and the
    /// last JSON line was cut.
    func testAFullDiskLeavesWholeFramesAndLines() throws {
        let y4m = try onFullDisk("""
            $K render --frames 400 --size 96x96 -o out.y4m; echo "exit $?"
            $K render --input out.y4m -o /dev/null -q 2>&1; echo "read back $?"
            echo "size $(stat -c %s out.y4m)"
            """, size: "32k")
        XCTAssertTrue(y4m.output.contains("exit 1"), y4m.output)
        let frames = try XCTUnwrap(count(before: "frames", in: y4m.stderr), y4m.stderr)
        XCTAssertTrue(y4m.stderr.contains("\(frames) frames were written to out.y4m before it, each whole"), y4m.stderr)
        let header = "YUV4MPEG2 W96 H96 F30:1 Ip A1:1 C420jpeg XYSCSS=420JPEG XCOLORRANGE=LIMITED\n".utf8.count
        XCTAssertTrue(y4m.output.contains("size \(header + frames * (6 + 96 * 96 * 3 / 2))"), "whole frames only: \(y4m.output)")
        XCTAssertTrue(y4m.output.contains("read back 0"), "Kamera reads its own file back: \(y4m.output)")

        let metadata = try onFullDisk("""
            $K render --frames 600 --size 64x64 -o /dev/null --analyze luma --metadata m.jsonl; echo "exit $?"
            cp m.jsonl ../m.jsonl
            """, size: "32k")
        XCTAssertTrue(metadata.output.contains("exit 1"), metadata.output)
        let records = try XCTUnwrap(count(before: "records", in: metadata.stderr), metadata.stderr)
        XCTAssertTrue(metadata.stderr.contains("m.jsonl holds the \(records) records written before it, each line whole"), metadata.stderr)
        let text = try String(contentsOf: run.folder.appendingPathComponent("m.jsonl"), encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("\n"), "ends with a whole line")
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, records)
        for line in lines {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), String(line))
        }
    }
}
