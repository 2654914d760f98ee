import Capture
import Foundation
import Output
import XCTest

/// Snapshots (`s` on the display): numbered PNG files that never overwrite.
final class SnapshotTests: XCTestCase {
    /// `s` on the display: numbered PNGs that never overwrite, the pixels exact.
    func testSnapshotsTakeTheNextFreeNumberAndNeverOverwrite() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-snapshots-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let taken = folder.appendingPathComponent("kamera-snapshot-0002.png")
        try Data("someone else's".utf8).write(to: taken)
        let writer = SnapshotWriter(folder: folder.path)
        let (width, height) = (5, 3)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var paths: [String] = []
        for shot in 0..<3 {
            for i in pixels.indices { pixels[i] = UInt8((i * 37 + shot * 11) % 256) }
            let path = try pixels.withUnsafeBytes { try writer.save($0, width: width, height: height) }
            paths.append((path as NSString).lastPathComponent)
            let frame = try XCTUnwrap(try ImageSource(path: path).nextFrame())
            XCTAssertEqual(frame.width, width)
            XCTAssertEqual(frame.height, height)
            // PNG is lossless: the saved picture is the given one, byte for byte (tolerance 0).
            for y in 0..<height {
                let row = Array(frame.planes[0].bytes[(y * frame.planes[0].bytesPerRow)..<(y * frame.planes[0].bytesPerRow + width * 4)])
                XCTAssertEqual(row, Array(pixels[(y * width * 4)..<((y + 1) * width * 4)]), "shot \(shot) row \(y)")
            }
        }
        XCTAssertEqual(paths, ["kamera-snapshot-0001.png", "kamera-snapshot-0003.png", "kamera-snapshot-0004.png"])
        XCTAssertEqual(try String(contentsOf: taken, encoding: .utf8), "someone else's", "a file already there was overwritten")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(left, ["kamera-snapshot-0001.png", "kamera-snapshot-0002.png", "kamera-snapshot-0003.png", "kamera-snapshot-0004.png"],
                       "no temporary left behind")
    }

    /// Committing without replacing keeps a file that took the name meanwhile.
    func testCommitWithoutReplacingKeepsAFileThatTookTheName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-noreplace-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shot.png").path
        let file = try OutputFile(path: path)
        try Array("new".utf8).withUnsafeBytes { try file.write($0) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))  // another process got there first
        XCTAssertFalse(try file.commit(replacing: false))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "old")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["shot.png"], "no temporary left behind")
        let free = try OutputFile(path: folder.appendingPathComponent("free.png").path)
        try Array("mine".utf8).withUnsafeBytes { try free.write($0) }
        XCTAssertTrue(try free.commit(replacing: false))
        XCTAssertEqual(try String(contentsOfFile: folder.appendingPathComponent("free.png").path, encoding: .utf8), "mine")
    }
}
