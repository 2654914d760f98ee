import Capture
import Foundation
import XCTest

/// The Debian package as a user gets it: built by scripts/package-deb.sh,
/// checked by lintian (no errors), installed with `apt-get install
/// ./kamera_*.deb` inside the VM (a throwaway root), where the installed
/// binary renders and reads a code (zxing-cpp's helper installed beside it),
/// `man -w kamera` finds the page, a `--help` example runs as printed (its
/// files in the installed examples folder) and bash completes.
final class PackageVMTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Built on the host before the boot (what package-deb.sh printed and logged
    /// kept in `build.out` and `build.err`), installed in the VM: last in its
    /// boot, as the package stays installed in the VM's root until it stops.
    static let steps = [VMStep("package", owner: "\(PackageVMTests.self)", script: """
        set -e
        deb=$(cat build.out)
        # Not man-db's rebuild of the whole system's manual index (Debian's switch: this file), which
        # took 100 of the install's 130 s under emulation; `man -w` below finds the page without it.
        rm -f /var/lib/man-db/auto-update
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$PWD/$(basename "$deb")" > apt.log 2>&1 || { cat apt.log; exit 1; }
        command -v kamera
        kamera --version
        kamera render --size 32x32 -o out.png
        test -x /usr/lib/kamera/kamera-zxing-helper
        qrencode -o qr.png 'FROM-THE-PACKAGE'
        echo "read: $(kamera render --input qr.png --detect codes --once)"
        man -w kamera
        # A --help example, as the installed kamera prints it: its files are where the package put them.
        example=$(kamera render --help | grep -m1 -o 'kamera render --input [^ ]*/Media/photo.jpg --filter instant -o photo.png')
        echo "help example: $example"
        eval "$example"
        test -f /usr/lib/systemd/system/kamera-kiosk.service -o -f /lib/systemd/system/kamera-kiosk.service
        bash -c 'source /usr/share/bash-completion/completions/kamera; COMP_WORDS=(kamera sha); COMP_CWORD=1; COMP_LINE="kamera sha"; COMP_POINT=10; _kamera; echo "completes: ${COMPREPLY[*]}"'
        """) { folder in
        let script = repository.appendingPathComponent("scripts/package-deb.sh").path
        let build = try KameraProcess.shell("'\(script)' '\(folder.path)' --lintian", in: folder)
        try build.stdout.write(to: folder.appendingPathComponent("build.out"))
        try build.stderr.write(to: folder.appendingPathComponent("build.err"), atomically: true, encoding: .utf8)
        guard build.status == 0 else { throw CaptureError("package-deb.sh --lintian: \(build.stderr.suffix(3000))") }
    }]

    func testPackageBuildsPassesLintianAndInstallsInTheVM() throws {
        let run = VMBoot.cameras.run("package")
        defer { run.remove() }
        let folder = try run.checkedFolder()
        let deb = try run.text("build.out").trimmingCharacters(in: .whitespacesAndNewlines), text = try run.text("build.err")
        let lintian = text.split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") || $0.hasPrefix("I: ") }
        print("lintian on \(deb):\n" + (lintian.isEmpty ? "(nothing)" : lintian.joined(separator: "\n")))
        XCTAssertFalse(lintian.contains { $0.hasPrefix("E: ") }, lintian.joined(separator: "\n"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: deb), deb)
        let name = (deb as NSString).lastPathComponent
        XCTAssertTrue(name.hasPrefix("kamera_") && name.hasSuffix(".deb"), name)

        let vmLog = try run.text("step.log")
        XCTAssertTrue(vmLog.contains("/usr/bin/kamera"), vmLog)
        XCTAssertTrue(vmLog.contains("kamera.1"), vmLog)
        XCTAssertTrue(vmLog.contains("read: FROM-THE-PACKAGE"), "the installed kamera reads codes through its helper: \(vmLog)")
        let completions = vmLog.components(separatedBy: "completes: ").last?.split(separator: "\n").first?.split(separator: " ") ?? []
        XCTAssertTrue(completions.contains("shader") && completions.contains("render"), "bash completes the commands: \(vmLog)")
        XCTAssertTrue(vmLog.contains("help example: kamera render --input /usr/share/doc/kamera/examples/Media/photo.jpg"), vmLog)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("photo.png").path), "the --help example ran as printed: \(vmLog)")
        let png = try Data(contentsOf: folder.appendingPathComponent("out.png"))
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "the installed kamera rendered a PNG")
    }
}
