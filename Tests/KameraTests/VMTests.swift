import Capture
import Foundation
import XCTest

/// Kamera inside the VM from shared/vm/run-in-vm, where the kernel's vkms
/// driver gives a real DRM node: EGL on GBM must render the same pixels as the
/// surfaceless platform does here. The VM must boot; if it cannot, the test fails.
final class VMTests: XCTestCase {
    /// Where run-in-vm may be, in order: `KAMERA_RUN_IN_VM`, `shared/vm` beside
    /// this checkout, and beside the checkout it was cloned from (a fresh
    /// clone elsewhere, as CI makes, has no `shared` beside it).
    static let runInVMCandidates: [String] = {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var candidates = ProcessInfo.processInfo.environment["KAMERA_RUN_IN_VM"].map { [$0] } ?? []
        candidates.append(repository.deletingLastPathComponent().appendingPathComponent("shared/vm/run-in-vm").path)
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        git.arguments = ["-C", repository.path, "config", "--get", "remote.origin.url"]
        let output = Pipe()
        git.standardOutput = output
        git.standardError = FileHandle.nullDevice
        if (try? git.run()) != nil {
            let origin = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            git.waitUntilExit()
            if origin.hasPrefix("/") {
                candidates.append(URL(fileURLWithPath: origin).standardizedFileURL.deletingLastPathComponent().appendingPathComponent("shared/vm/run-in-vm").path)
            }
        }
        return candidates
    }()

    static var runInVM: URL {
        URL(fileURLWithPath: runInVMCandidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? runInVMCandidates[0])
    }

    /// True when this test binary runs inside the VM.
    static var insideVM: Bool { ProcessInfo.processInfo.environment["RUN_IN_VM"] != nil }

    /// Runs `command` in the VM with `folder` as its working directory (shared
    /// with the host) and `KAMERA` set to the built binary; returns the exit
    /// status and stdout and stderr together. Throws if run-in-vm is missing.
    static func run(_ command: [String], vmArguments: [String] = [], in folder: URL) throws -> (status: Int32, log: String) {
        guard FileManager.default.isExecutableFile(atPath: runInVM.path) else {
            throw CaptureError("run-in-vm is missing (looked at \(runInVMCandidates.joined(separator: ", "))): the VM tests cannot run; set KAMERA_RUN_IN_VM")
        }
        let process = Process()
        process.executableURL = runInVM
        process.arguments = vmArguments + ["--"] + command
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["KAMERA"] = CommandLineTests.binary.path
        // run-in-vm caps llvmpipe at SSE4.1 in the guest (QEMU's TCG mis-emulates
        // AVX2 gathers); see its README.
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let log = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, log)
    }

    /// The tests that only this test binary can make, as they call Kamera's
    /// library with the VM's camera and display: one run of the binary in the
    /// VM for all of them (a step of the two-camera boot, as one needs two cameras).
    static let inProcessTests = ["CameraSessionVMTests/testSwitchingCameraKeepsContextAndOutput", "DMABufVMTests/testImportIsCheckedAgainstTheCopyPath"]
    static let inProcessStep = VMStep("in-process", owners: ["\(CameraSessionVMTests.self)", "\(DMABufVMTests.self)"],
                                      script: "\"\(CommandLine.arguments[0])\" '\(inProcessTests.map { "KameraTests." + $0 }.joined(separator: ","))'",
                                      vivid: VMStep.twoCameras)

    /// Fails unless `test` ("Class/method", one of `inProcessTests`) passed in the VM.
    static func passedInsideVM(_ test: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let run = VMBoot.cameras.run(inProcessStep.name)
        let log = try run.text("step.log")
        let name = test.replacingOccurrences(of: "/", with: ".")
        XCTAssertTrue(log.contains("Test Case '\(name)' passed"), "\(test) did not pass inside the VM:\n\(log.suffix(4000))", file: file, line: line)
    }

    static let arguments = ["render", "--input-size", "320x240", "--filter", "sepia", "--frames", "2"]
    static let steps = [VMStep("gbm", owner: "\(VMTests.self)",
                               script: "ls /dev/dri/card0 && \"$KAMERA\" \(arguments.joined(separator: " ")) -v --gpu gbm:/dev/dri/card0 --gles 3 -o gbm-%d.png")]

    func testGBMOnVKMSMatchesSurfaceless() throws {
        let run = VMBoot.cameras.run("gbm")
        defer { run.remove() }
        let folder = try run.checkedFolder()
        let log = try run.text("step.log")
        XCTAssertTrue(log.contains("platform gbm:/dev/dri/card0"), "kamera did not use GBM:\n\(log)")

        let arguments = Self.arguments, kamera = CommandLineTests.binary.path
        let local = Process()
        local.executableURL = URL(fileURLWithPath: kamera)
        local.arguments = arguments + ["--gpu", "surfaceless", "-o", "surfaceless-%d.png"]
        local.currentDirectoryURL = folder
        // The same llvmpipe code on both sides: run-in-vm caps it at SSE4.1 in the
        // guest, and other vector code rounds differently by a unit here and there.
        local.environment = ProcessInfo.processInfo.environment.merging(["GALLIUM_OVERRIDE_CPU_CAPS": "sse4.1"]) { $1 }
        try local.run()
        local.waitUntilExit()
        XCTAssertEqual(local.terminationStatus, 0)

        for i in 0..<2 {
            let gbm = try XCTUnwrap(try ImageSource(path: folder.appendingPathComponent("gbm-\(i).png").path).nextFrame())
            let here = try XCTUnwrap(try ImageSource(path: folder.appendingPathComponent("surfaceless-\(i).png").path).nextFrame())
            XCTAssertEqual(gbm.width, 240)
            XCTAssertEqual(Array(gbm.planes[0].bytes), Array(here.planes[0].bytes), "frame \(i): GBM and surfaceless differ")
        }
    }
}
