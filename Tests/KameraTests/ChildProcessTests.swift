import Glibc
import Lifecycle
import XCTest

/// Lifecycle's one way to run a program: to its end (`run`), or beside this
/// process with descriptors of its own (`start`).
final class ChildProcessTests: XCTestCase {
    func testRunKeepsOutputAndStatus() throws {
        let result = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 3"]).run()
        XCTAssertEqual(result.status, 3)
        XCTAssertNil(result.signal)
        XCTAssertEqual(result.output, "out\nerr\n")
        XCTAssertFalse(result.timedOut)
    }

    func testRunKillsPastItsTimeLimit() throws {
        let result = try ChildProcess(executable: "/bin/sleep", arguments: ["30"], timeLimit: 0.2).run()
        XCTAssertTrue(result.timedOut)
        XCTAssertEqual(result.signal, SIGKILL)
        XCTAssertLessThan(result.seconds, 20, "killed, not waited for")
    }

    func testInputBytesReachTheChild() throws {
        let result = try ChildProcess(executable: "/bin/cat", arguments: [], input: .bytes(Array("through".utf8))).run()
        XCTAssertEqual(result.output, "through")
    }

    /// A started child gets the descriptors it is handed at the numbers asked,
    /// argv[0] as named, the extra environment, and no other descriptor of ours.
    func testStartHandsDescriptorsAndIsStoppedAndReaped() throws {
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&ends), 0)
        let unrelated = open("/dev/null", O_RDONLY)
        defer { close(unrelated) }
        var process = ChildProcess(executable: "/bin/sh",
                                   arguments: ["-c", "echo \"$0 $KAMERA_CHILD_TEST\" >&3; ls /proc/self/fd >&3; exec 3>&-; exec sleep 30"],
                                   environment: ["KAMERA_CHILD_TEST": "set"])
        process.name = "named"
        process.ownProcessGroup = true
        process.descriptors = [3: ends[1]]
        let child = try process.start()
        close(ends[1])
        var text = ""
        var chunk = [UInt8](repeating: 0, count: 256)
        while true {
            let count = read(ends[0], &chunk, chunk.count)
            guard count > 0 else { break }
            text += String(decoding: chunk[..<count], as: UTF8.self)
        }
        close(ends[0])
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.first, "named set", text)
        // ls's own: 0 to 3, and 4 for the folder it lists.
        XCTAssertEqual(Set(lines.dropFirst()), ["0", "1", "2", "3", "4"], "only the descriptors handed over: \(text)")
        XCTAssertEqual(getpgid(child.pid), child.pid, "a process group of its own")
        let status = child.stop()
        XCTAssertEqual(status & 0x7f, SIGKILL)
        XCTAssertNil(RunningChild.describe(status))
        XCTAssertEqual(child.stop(), status, "reaped once")
        XCTAssertEqual(RunningChild.describe(3 << 8), "status 3")
    }
}
