import Foundation
import Glibc
import Lifecycle
import XCTest

/// Lifecycle's one reader of small hand-written files (shaders, matrices, a
/// run's configuration): bounded before it reads, and never blocked by a FIFO.
final class BoundedFileTests: XCTestCase {
    func testEachFailureIsToldApart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-bounded-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("ten").path
        try Data(repeating: 7, count: 10).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(BoundedFile.read(file, limit: 10), .success([UInt8](repeating: 7, count: 10)))
        XCTAssertEqual(BoundedFile.read(file, limit: 9), .failure(.tooLarge(bytes: 10)))
        XCTAssertEqual(BoundedFile.read(folder.appendingPathComponent("missing").path, limit: 9), .failure(.unopened(errno: ENOENT)))
        XCTAssertEqual(BoundedFile.read(folder.path, limit: 9), .failure(.notRegular))
        let fifo = folder.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(BoundedFile.read(fifo, limit: 9), .failure(.notRegular), "refused without waiting for a writer")
        XCTAssertEqual(BoundedFile.read("/dev/zero", limit: 9), .failure(.notRegular))
    }
}
