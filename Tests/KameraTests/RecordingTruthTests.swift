import Foundation
import XCTest

/// What a recording leaves when the run is killed outright or the disk
/// fills: never a broken file under the name, an older file kept until the
/// new one holds a whole fragment, at most half a second lost, and a
/// message whose count is what a reader decodes. Files are read back by
/// Debian's ffprobe; the full disk is a small tmpfs mounted in a mount
/// namespace of the test's own (`unshare`), so no root is needed.
final class RecordingTruthTests: KameraProcessTestCase {
    private func sh(_ script: String) throws -> KameraProcess.Result {
        try KameraProcess.shell("K='\(KameraProcess.binary.path)'\n" + script, in: run.folder)
    }

    /// Frames ffprobe decodes from the first video stream of `name` (0 when it cannot read it).
    private func decodedFrames(_ name: String) throws -> Int {
        let result = try sh("ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 \(name)")
        return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Starts a preview recording to `output`, waits until its status line
    /// says `rec N` with N at least `frames`, kills it with SIGKILL, and
    /// gives the last N seen.
    private func killRecording(_ output: String, after frames: Int, fps: Int = 30) throws -> Int {
        let result = try sh("""
            $K preview --size 320x240 --fps \(fps) --status-every 0.05 -o \(output) 2> log.txt &
            P=$!
            for i in $(seq 1200); do
              n=$(tr '\\r' '\\n' < log.txt | grep -o 'rec [0-9]*' | tail -1 | cut -d' ' -f2)
              [ -n "$n" ] && [ "$n" -ge \(frames) ] && break
              sleep 0.02
            done
            kill -KILL $P; wait $P; echo "exit $?"
            tr '\\r' '\\n' < log.txt | grep -o 'rec [0-9]*' | tail -1
            """)
        XCTAssertTrue(result.output.contains("exit 137"), result.output + result.stderr)
        let seen = result.output.split(separator: "\n").last { $0.hasPrefix("rec ") }
        return try XCTUnwrap(seen.flatMap { Int($0.dropFirst(4)) }, result.output + result.stderr)
    }

    /// Killed just after its first frame was encoded (one frame a second),
    /// a recording has at most one whole fragment: the name holds either the
    /// older file, untouched, or a new file that plays its frame, in every
    /// container. Before, the new file took the name with its first frame and
    /// held only a header (ffprobe read nothing) for up to two seconds.
    func testAKillBeforeTheFirstWholeFragmentKeepsTheOlderFile() throws {
        for name in ["old.mp4", "old.mkv", "old.webm"] {
            XCTAssertEqual(try sh("$K render --frames 12 --size 64x64 -q -o \(name)").status, 0)
            let before = try Data(contentsOf: run.folder.appendingPathComponent(name))
            _ = try killRecording(name, after: 1, fps: 1)
            let after = try Data(contentsOf: run.folder.appendingPathComponent(name))
            let decoded = try decodedFrames(name)
            print("SIGKILL after the first frame: \(name) is \(after == before ? "the older file" : "new, \(decoded) frame(s)")")
            XCTAssertTrue(after == before ? decoded == 12 : decoded >= 1, "\(name): a new file under the name must play; it decodes to \(decoded) frames")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: run.folder.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(left, [], "no temporary left beside the recordings")
    }

    /// SIGKILL in the middle of a live recording loses at most half a second
    /// (a cut every 0.5 s of picture, encoders holding no frames back) plus
    /// the frame in flight: at 30 fps at most 16 frames, at 5 fps at most 3,
    /// counted from the last status line before the kill. Before, 19–46
    /// frames were lost at 30 fps, and everything at 5 fps.
    func testSIGKILLLosesAtMostHalfASecond() throws {
        for (name, fps) in [("k.mp4", 30), ("k.mkv", 30), ("k.webm", 30), ("k5.mp4", 5), ("k5.mkv", 5)] {
            let recorded = try killRecording(name, after: fps * 2, fps: fps)
            let decoded = try decodedFrames(name)
            print("SIGKILL at \(fps) fps: \(name) had \(recorded) frames encoded, decodes to \(decoded)")
            XCTAssertLessThanOrEqual(decoded, recorded + fps, name)
            XCTAssertGreaterThanOrEqual(decoded, recorded - (fps / 2 + 2), "\(name): more than half a second and a frame lost")
        }
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
