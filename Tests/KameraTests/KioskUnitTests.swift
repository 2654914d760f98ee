import Foundation
import XCTest

/// The systemd unit in Examples/kiosk must pass `systemd-analyze verify`
/// (syntax, known settings, an executable ExecStart).
final class KioskUnitTests: XCTestCase {
    func testSystemdUnitVerifies() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let unit = try String(contentsOf: root.appendingPathComponent("Examples/kiosk/kamera-kiosk.service"), encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=/usr/local/bin/kamera preview -o kms"), "the unit no longer starts the display preview")
        // The unit names the installed binary; verify it against the one just built.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-unit-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("kamera-kiosk.service")
        try unit.replacingOccurrences(of: "/usr/local/bin/kamera", with: KameraProcess.binary.path).write(to: path, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = ["verify", path.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, message)
        XCTAssertEqual(message, "", "systemd-analyze found problems")
    }
}
