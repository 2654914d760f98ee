import Foundation
import Glibc
import ShaderHarness
import XCTest

/// The shader watcher's view of saves, step by step, without timing: each
/// file operation is done, then the watcher is asked what it saw.
final class FileWatcherTests: ScratchFolderTestCase {
    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Writes `text` to a hidden temporary and renames it over `name`; the
    /// descriptor is returned open, as a save that closes after the rename leaves it.
    private func renameIntoPlace(_ name: String, _ text: String) throws -> Int32 {
        let temporary = path(".\(name).save")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0, "cannot create \(temporary)")
        XCTAssertEqual(text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }, text.utf8.count)
        XCTAssertEqual(rename(temporary, path(name)), 0)
        return descriptor
    }

    func testASaveCountsOnceEvenWhenItsFileIsClosedAfterTheRename() throws {
        try "first\n".write(toFile: path("live.frag"), atomically: false, encoding: .utf8)
        let watcher = FileWatcher(files: [path("live.frag")])
        XCTAssertTrue(watcher.usesInotify, "inotify is offered here; the event path is what this test checks")
        XCTAssertFalse(watcher.takeChange(), "nothing changed yet")

        let descriptor = try renameIntoPlace("live.frag", "broken save\n")
        XCTAssertTrue(watcher.takeChange(), "the rename is a save")
        XCTAssertEqual(watcher.changed, [path("live.frag")])
        // The compile failed: from now any source-like change retries.
        watcher.anyChangeCounts = true
        close(descriptor)
        XCTAssertFalse(watcher.takeChange(), "closing the saved file after its rename is the same save, not a second one")

        // Kamera's own picture beside the shader is no save either.
        try Data([1, 2, 3]).write(to: folder.appendingPathComponent("live.png"))
        XCTAssertFalse(watcher.takeChange(), "a PNG written beside the shader is no fix")

        // A file not watched yet (an include the broken save named) counts when it appears.
        try "#define LATER 1\n".write(toFile: path("later.glsl"), atomically: false, encoding: .utf8)
        XCTAssertTrue(watcher.takeChange(), "a new source file beside the shader may be the fix")

        // The watched file saved again counts, by its stamp.
        try "fixed save, longer\n".write(toFile: path("live.frag"), atomically: false, encoding: .utf8)
        XCTAssertTrue(watcher.takeChange(), "a second save of the watched file counts")
        XCTAssertFalse(watcher.takeChange(), "each save counts once")
    }
}
