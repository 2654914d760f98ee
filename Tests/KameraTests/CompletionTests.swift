import Foundation
import XCTest

/// The bash completion that `scripts/install.sh` installs (the binary's own
/// `--generate-completion-script bash`), run by a real bash: the script is
/// sourced, the line typed so far is set as bash sets it before it calls a
/// completion function, and what the function offers is read back.
final class CompletionTests: XCTestCase {
    var scratch: KameraProcess!

    override func setUpWithError() throws {
        scratch = try KameraProcess.scratch("completion")
        let script = try KameraProcess.shell("'\(KameraProcess.binary.path)' --generate-completion-script bash > completion.bash", in: scratch.folder)
        XCTAssertEqual(script.status, 0, script.stderr)
        let files = FileManager.default
        try files.createDirectory(at: scratch.folder.appendingPathComponent("Examples/Shaders"), withIntermediateDirectories: true)
        for name in ["Examples/Shaders/ripple.frag", "Examples/Shaders/notes.txt", "in.png"] {
            XCTAssertTrue(files.createFile(atPath: scratch.folder.appendingPathComponent(name).path, contents: Data()))
        }
    }

    override func tearDown() {
        scratch.remove()
    }

    /// What bash's completion offers for `line` (the cursor at its end), sorted.
    private func complete(_ line: String) throws -> [String] {
        let result = try KameraProcess.shell("""
            source ./completion.bash
            COMP_LINE=\(VMBoot.shellQuoted(line))
            COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$COMP_LINE"
            [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMPREPLY=()
            _kamera kamera "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """, in: scratch.folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "", line)
        return result.output.split(separator: "\n").map(String.init).sorted()
    }

    /// A shader file, a folder on the way to one, inputs and outputs: files
    /// are completed where a file is taken. Before, nothing was offered.
    func testFilesAreCompletedWhereAFileIsTaken() throws {
        XCTAssertEqual(try complete("kamera shader Examples/Sh"), ["Examples/Shaders"])
        XCTAssertEqual(try complete("kamera shader Examples/Shaders/"), ["Examples/Shaders/ripple.frag"], "shaders only, not notes.txt")
        XCTAssertEqual(try complete("kamera render --input i"), ["in.png"])
        XCTAssertEqual(try complete("kamera preview -o i"), ["in.png"])
        XCTAssertEqual(try complete("kamera render --expect i"), ["in.png"])
    }

    /// Values the options take: filters (names and shader files), crops,
    /// pixel formats, cameras. Before, nothing was offered.
    func testKnownValuesAreOffered() throws {
        XCTAssertEqual(try complete("kamera render --filter se"), ["sepia"])
        XCTAssertEqual(try complete("kamera preview --filter Examples/Shaders/"), ["Examples/Shaders/ripple.frag"])
        XCTAssertEqual(try complete("kamera render --crop "), ["none", "square"])
        XCTAssertTrue(try complete("kamera render --format ").isSuperset(of: ["auto", "yuyv", "nv12", "mjpeg"]))
        XCTAssertEqual(try complete("kamera preview --camera a"), ["auto"])
        XCTAssertEqual(try complete("kamera render --codec h"), ["h264", "hevc"])
        XCTAssertTrue(try complete("kamera render --fi").contains("--filter"), "options themselves still complete")
    }
}

private extension Array where Element == String {
    func isSuperset(of other: [String]) -> Bool { Set(self).isSuperset(of: other) }
}
