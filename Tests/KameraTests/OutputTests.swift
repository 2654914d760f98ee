import Capture
import Foundation
import Pixels
import XCTest

/// Where output goes and what a run leaves behind: special files written in
/// place, standard output, symbolic links, runs killed or interrupted at any
/// moment, and inputs that fail part-way.
final class OutputTests: KameraProcessTestCase {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Splits PNGs that follow one another and decodes each.
    func decodeStream(_ data: Data) throws -> [Frame] {
        let bytes = [UInt8](data)
        var starts: [Int] = []
        var i = 0
        while i + 8 <= bytes.count {
            if Array(bytes[i..<i + 8]) == Self.signature { starts.append(i); i += 8 } else { i += 1 }
        }
        return try starts.enumerated().map { n, start in
            let end = n + 1 < starts.count ? starts[n + 1] : bytes.count
            let path = run.path(".stream-\(n).png")
            try Data(bytes[start..<end]).write(to: URL(fileURLWithPath: path))
            defer { unlink(path) }
            return try XCTUnwrap(try ImageSource(path: path).nextFrame())
        }
    }

    /// Every file is a whole PNG; nothing else is there, hidden files included.
    func assertOnlyCompletePNGs(file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let names = try FileManager.default.contentsOfDirectory(atPath: run.folder.path)
        for name in names {
            XCTAssertTrue(name.hasSuffix(".png") && !name.hasPrefix("."), "unexpected file \(name)", file: file, line: line)
            XCTAssertNoThrow(try ImageSource(path: run.path(name)).nextFrame(), name, file: file, line: line)
        }
        return names.count
    }

    func testDevNullIsWrittenNotReplaced() throws {
        var before = stat(), after = stat()
        XCTAssertEqual(stat("/dev/null", &before), 0)
        let result = try run.run(["render", "--input-size", "64x48", "--frames", "2", "-o", "/dev/null"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(stat("/dev/null", &after), 0)
        XCTAssertEqual(after.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a device")
        XCTAssertEqual(after.st_rdev, before.st_rdev)
        XCTAssertEqual(after.st_ino, before.st_ino)
    }

    func testFIFOTakesThePNGsOneAfterAnother() throws {
        let fifo = run.path("frames.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        var received = Data()
        let done = DispatchSemaphore(value: 0)
        Thread {
            received = FileHandle(forReadingAtPath: fifo)!.readDataToEndOfFile()
            done.signal()
        }.start()
        let result = try run.run(["render", "--input-size", "64x48", "--frames", "3", "-o", "frames.fifo"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        let frames = try decodeStream(received)
        XCTAssertEqual(frames.count, 3)
        XCTAssertTrue(frames.allSatisfy { $0.width == 48 && $0.height == 48 })
        var info = stat()
        XCTAssertEqual(lstat(fifo, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO, "the FIFO is still a FIFO")
    }

    /// A reader that opens the FIFO and then takes nothing: one SIGINT ends
    /// the run by SIGINT, and the pipe holds whole PNGs only.
    func testStopWhileTheFIFOReaderTakesNothingLeavesWholePNGs() throws {
        let fifo = run.path("stalled.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let process = Process()
        process.executableURL = KameraProcess.binary
        process.arguments = ["render", "--input-size", "640x480", "--crop", "none", "--frames", "1000", "-o", "stalled.fifo"]
        process.currentDirectoryURL = run.folder
        let err = Pipe()
        process.standardError = err
        try process.run()
        let reader = try XCTUnwrap(FileHandle(forReadingAtPath: fifo))
        usleep(1_500_000)  // the writer renders and then waits for the reader
        kill(process.processIdentifier, SIGINT)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, stderr)
        XCTAssertEqual(process.terminationStatus, SIGINT, stderr)
        let frames = try decodeStream(reader.readDataToEndOfFile())
        XCTAssertGreaterThanOrEqual(frames.count, 1, stderr)
        XCTAssertTrue(frames.allSatisfy { $0.width == 640 && $0.height == 480 })
        print("stalled FIFO reader: stopped on the first SIGINT with \(frames.count) whole PNG(s) in the pipe: \(stderr)")
    }

    func testStandardOutputTakesAStreamOfPNGs() throws {
        let result = try run.run(["render", "--input-size", "64x48", "--filter", "sepia", "--frames", "3", "-o", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let frames = try decodeStream(result.stdout)
        XCTAssertEqual(frames.count, 3)
        let file = try run.run(["render", "--input-size", "64x48", "--filter", "sepia", "-o", "one.png"])
        XCTAssertEqual(file.status, 0, file.stderr)
        let reference = try XCTUnwrap(try ImageSource(path: run.path("one.png")).nextFrame())
        XCTAssertEqual(Array(frames[0].planes[0].bytes), Array(reference.planes[0].bytes), "frame 0 on stdout is the file's frame")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run.folder.path), ["one.png"], "nothing else written")
    }

    /// A reader that takes part of an image and exits leaves bytes in the pipe
    /// that no one will read: the next image's wait for an empty pipe must end
    /// with the "closed the pipe" error, not wait forever (it did).
    func testReaderLeavingWithUnreadBytesEndsTheRun() throws {
        let process = Process()
        process.executableURL = KameraProcess.binary
        process.arguments = ["render", "--frames", "30", "-o", "-"]
        process.currentDirectoryURL = run.folder
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        _ = try out.fileHandleForReading.read(upToCount: 1000)
        try out.fileHandleForReading.close()
        let deadline = Date().addingTimeInterval(60)  // only catches a hang, on a loaded machine too
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationReason, .exit, stderr)
        XCTAssertEqual(process.terminationStatus, 1, stderr)
        XCTAssertTrue(stderr.contains("the program reading it closed the pipe"), stderr)
    }

    func testSymbolicLinkIsFollowedAndKept() throws {
        try run.write("target.png", [1, 2, 3])
        XCTAssertEqual(symlink("target.png", run.path("link.png")), 0)
        let result = try run.run(["render", "--input-size", "64x48", "-o", "link.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        var info = stat()
        XCTAssertEqual(lstat(run.path("link.png"), &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFLNK, "the link stays a link")
        XCTAssertEqual(try XCTUnwrap(try ImageSource(path: run.path("target.png")).nextFrame()).width, 48, "its target is the new PNG")
    }


    /// `/dev/stdout`, `/dev/stderr` and `/dev/fd/N` are the descriptors the
    /// shell gave: written in place, into a pipe (where they name no file)
    /// or after what the shell wrote to a file before (not replacing it).
    func testDescriptorNamesAreWrittenWhereTheShellPointsThem() throws {
        let result = try KameraProcess.shell("""
            K='\(KameraProcess.binary.path)'
            $K render --input-size 64x48 -o /dev/stdout | wc -c > piped.txt
            $K render --input-size 64x48 --detect codes --metadata /dev/stderr 2>&1 >/dev/null | wc -l > stderr.txt
            { echo before; $K render --input-size 64x48 --detect codes --metadata /dev/stdout; echo after; } > kept.txt
            $K render --input-size 64x48 --detect codes --metadata /dev/fd/5 5>fd5.txt
            """, in: run.folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThan(Int(try String(contentsOfFile: run.path("piped.txt"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 100, "a PNG went down the pipe")
        XCTAssertEqual(try String(contentsOfFile: run.path("stderr.txt"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), "1", "one JSON line on standard error")
        let kept = try String(contentsOfFile: run.path("kept.txt"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(kept.count, 3, "\(kept)")
        XCTAssertEqual(kept.first, "before")
        XCTAssertTrue(kept.dropFirst().first?.hasPrefix("{\"frame\": 0") == true, "\(kept)")
        XCTAssertEqual(kept.last, "after")
        let fd5 = try String(contentsOfFile: run.path("fd5.txt"), encoding: .utf8)
        XCTAssertTrue(fd5.hasPrefix("{\"frame\": 0"), fd5)
        // /dev/stdout is standard output as - is; a descriptor the shell did not open, or opened for reading, is refused.
        for (arguments, message) in [(["-o", "-", "--metadata", "/dev/stdout"], "-o - takes standard output"),
                                     (["--metadata", "/dev/fd/7"], "/dev/fd/7: descriptor 7 is not open; open it in the shell"),
                                     (["--metadata", "/dev/fd/0"], "/dev/fd/0: descriptor 0 is open for reading only")] {
            let refused = try run.run(["render", "--input-size", "64x48", "--detect", "codes"] + arguments)
            XCTAssertEqual(refused.status, 1, "\(arguments): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
            XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        }
    }
    /// SIGKILL cannot be caught: whatever moment it comes, the folder holds
    /// whole PNGs only (unnamed files vanish with the process).
    func testKillAtAnyMomentLeavesOnlyCompletePNGs() throws {
        var written = 0
        for round in 0..<6 {
            let process = Process()
            process.executableURL = KameraProcess.binary
            process.arguments = ["render", "--cube", "--frames", "100000", "--input-size", "320x240", "-o", "k\(round)-%06d.png"]
            process.currentDirectoryURL = run.folder
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(UInt32.random(in: 0...400_000)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)
            written = try assertOnlyCompletePNGs()
        }
        print("kill test: \(written) complete PNGs over 6 runs killed at random moments, nothing else left")
    }

    /// Hidden temporaries (where a filesystem has no O_TMPFILE, and for the
    /// instant between linking a finished file and renaming it over an old
    /// one) that a killed run left are removed by the next run that writes to
    /// the folder: at once when their process, of this PID namespace, is gone;
    /// after ten minutes unchanged when they come from another namespace.
    func testStaleHiddenTemporariesAreRemovedByTheNextRun() throws {
        var link = [CChar](repeating: 0, count: 64)
        let n = readlink("/proc/self/ns/pid", &link, 63)
        let namespace = String(decoding: link[0..<max(0, n)].map { UInt8(bitPattern: $0) }, as: UTF8.self).filter(\.isNumber)
        var dead: Int32 = 4_000_000
        while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
        let stale = ".f-000003.png.kamera-\(namespace)-\(dead).tmp"
        let alive = ".f-000004.png.kamera-\(namespace)-\(getpid()).tmp"
        let foreignFresh = ".f-000005.png.kamera-1-\(dead).tmp", foreignOld = ".f-000006.png.kamera-1-\(dead).tmp"
        let other = ".notes.tmp"
        for name in [stale, alive, foreignFresh, foreignOld, other] { try run.write(name, [1, 2, 3]) }
        var old = [timeval(tv_sec: time(nil) - 700, tv_usec: 0), timeval(tv_sec: time(nil) - 700, tv_usec: 0)]
        for name in [foreignOld, other] { XCTAssertEqual(utimes(run.path(name), &old), 0) }
        let result = try run.run(["render", "--input-size", "64x48", "-o", "f.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: run.folder.path))
        XCTAssertFalse(names.contains(stale), "a temporary of a process of this namespace that is gone is removed")
        XCTAssertFalse(names.contains(foreignOld), "another namespace's temporary unchanged for ten minutes is removed")
        XCTAssertTrue(names.isSuperset(of: [alive, foreignFresh, other, "f.png"]), "live processes', recent foreign ones and other files stay: \(names)")
    }

    /// A Y4M from a pipe cannot be scanned ahead: when it breaks in frame 2 the
    /// frames already written stay, complete, and the message says how many.
    func testInputFailingMidwaySaysHowManyFramesWereWritten() throws {
        let fifo = run.path("clip.y4m")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let frame = Array("FRAME\n".utf8) + [UInt8](repeating: 120, count: 16 * 8 * 3 / 2)
        let bytes = Array("YUV4MPEG2 W16 H8 F30:1 C420jpeg\n".utf8) + frame + frame + Array("FRAME\n".utf8) + [1, 2, 3]
        let writer = Thread { FileHandle(forWritingAtPath: fifo)!.write(Data(bytes)) }
        writer.start()
        let result = try run.run(["render", "--input", "clip.y4m", "--frames", "5", "-o", "f-%d.png"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("frame 2 is truncated"), result.stderr)
        XCTAssertTrue(result.stderr.contains("2 frames were written before it (f-0.png to f-1.png), each complete"), result.stderr)
        unlink(fifo)
        XCTAssertEqual(try assertOnlyCompletePNGs(), 2)
    }

    /// SIGINT or SIGTERM at any moment, the first milliseconds included: the
    /// process ends by that signal (never a crash, never status 0), leaving
    /// only complete PNGs; once the handler is in place it says how far it got.
    func testSignalsAtAnyMomentEndTheRunBySignal() throws {
        var told = 0
        for round in 0..<16 {
            let signal = round % 2 == 0 ? SIGINT : SIGTERM
            let arguments = round % 4 < 2
                ? ["render", "--frames", "100000", "--input-size", "160x120", "-o", "s\(round)-%06d.png"]
                : ["preview", "--input-size", "160x120", "-o", "p\(round).png", "--png-every", "0.05"]
            let (process, err) = try run.start(arguments)
            usleep(useconds_t(round < 8 ? UInt32(round) * 2_000 : UInt32.random(in: 0...600_000)))
            kill(process.processIdentifier, signal)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "round \(round): \(stderr)")
            XCTAssertEqual(process.terminationStatus, signal, "round \(round) ends by the signal it got: \(stderr)")
            for crash in ["double free", "Fatal error", "Segmentation", "Aborted", "corruption"] {
                XCTAssertFalse(stderr.contains(crash), "round \(round): \(stderr)")
            }
            if stderr.contains("interrupted after") || stderr.contains("previewed") { told += 1 }
            _ = try assertOnlyCompletePNGs()
        }
        print("signal test: 16 runs ended by their signal; \(told) had the handler in place and said how far they got")
    }

    /// Many short runs, two at a time: each exits 0 with nothing on stderr
    /// (an exit racing a thread's teardown aborted about 1 run in 150).
    func testManyRunsExitCleanly() throws {
        let group = DispatchGroup()
        let lock = NSLock()
        var failures: [String] = []
        for lane in 0..<2 {
            DispatchQueue.global().async(group: group) {
                for i in 0..<20 {
                    do {
                        let result = try self.run.run(["render", "--input-size", "64x48", "-o", "lane\(lane)-\(i).png"])
                        if result.status != 0 || result.reason != .exit || !result.stderr.isEmpty {
                            lock.lock(); failures.append("lane \(lane) run \(i): \(result.status) \(result.stderr)"); lock.unlock()
                        }
                    } catch {
                        lock.lock(); failures.append("\(error)"); lock.unlock()
                    }
                }
            }
        }
        group.wait()
        XCTAssertEqual(failures, [])
    }
}

/// Output on a filesystem without O_TMPFILE, in the VM from shared/vm/run-in-vm
/// (its working folder is 9p). The VM must boot; if it cannot, the test fails.
final class OutputVMTests: XCTestCase {
    static let steps = [VMStep("output-9p", owner: "\(OutputVMTests.self)", script: script)]

    static let script = """
        set -u
        K="$KAMERA"
        python3 -c 'import os; os.open(".", os.O_TMPFILE | os.O_WRONLY)' 2> tmpfile.txt; echo $? > tmpfile.rc
        $K render --input-size 64x48 -o plain.png; echo $? > plain.rc
        $K render --cube --frames 100000 --input-size 320x240 -o k-%06d.png 2> /dev/null &
        P=$!
        until [ -e k-000002.png ]; do sleep 0.05; done
        kill -9 $P; wait $P
        ls -A > after-kill.txt
        echo stale > .k-999999.png.kamera-$(readlink /proc/self/ns/pid | tr -dc 0-9)-$P.tmp
        $K render --input-size 64x48 -o next.png; echo $? > next.rc
        ls -A > after-next.txt
        """

    /// In the VM the working folder is 9p, which has no O_TMPFILE: files are
    /// written under hidden names and renamed. A run killed there leaves at
    /// most hidden temporaries, and the next run removes those of dead processes.
    func testWithoutTmpfileKilledRunsLeaveNothingTheNextRunKeeps() throws {
        let run = VMBoot.cameras.run("output-9p")
        defer { run.remove() }
        let folder = try run.checkedFolder()
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func file(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }
        XCTAssertNotEqual(try file("tmpfile.rc"), "0\n", "9p has no O_TMPFILE, so the fallback is what runs here")
        XCTAssertEqual(try file("plain.rc"), "0\n")
        XCTAssertEqual(try XCTUnwrap(try ImageSource(path: path("plain.png")).nextFrame()).width, 48)
        let afterKill = try file("after-kill.txt").split(separator: "\n").filter { !$0.hasSuffix(".txt") && !$0.hasSuffix(".rc") && !$0.hasSuffix(".log") && !$0.hasSuffix(".sh") && $0 != "plain.png" }
        XCTAssertTrue(afterKill.allSatisfy { ($0.hasPrefix("k-") && $0.hasSuffix(".png")) || ($0.hasPrefix(".k-") && $0.contains(".kamera-")) }, "\(afterKill)")
        XCTAssertEqual(try file("next.rc"), "0\n")
        let afterNext = try file("after-next.txt").split(separator: "\n")
        XCTAssertFalse(afterNext.contains { $0.contains(".kamera-") }, "the next run removed the dead runs' temporaries: \(afterNext)")
        for name in afterNext where name.hasSuffix(".png") {
            XCTAssertNoThrow(try ImageSource(path: path(String(name))).nextFrame(), String(name))
        }
        print("9p: \(afterKill.filter { $0.hasPrefix("k-") }.count) whole PNGs and \(afterKill.filter { $0.hasPrefix(".") }.count) hidden temporaries after SIGKILL; none after the next run")
    }
}
