import Foundation
import XCTest

/// A VM boot shared by several test classes: each class's script is a step
/// (`VMStep`) of one run of shared/vm/run-in-vm, made when the first of its
/// tests asks for it, for every step whose class this test run selected.
/// Every boot of a test run is one of the few below; each step runs in a
/// folder of its own with its drivers loaded anew, its own log and a time
/// limit, so that one step's failure or hang fails that step's tests alone,
/// named, with the end of its logs.
final class VMBoot: @unchecked Sendable {
    /// One vivid camera (the driver's defaults) and vkms, and the steps that need two cameras.
    static let cameras = VMBoot(name: "cameras", steps: CameraVMTests.steps + LibV4LVMTests.steps + RecordingVMTests.steps
        + DisplayVMTests.steps + VMTests.steps + OutputVMTests.steps + BayerVMTests.steps + RepackVMTests.steps
        + CameraSessionVMTests.steps + [VMTests.inProcessStep] + PackageVMTests.steps + ServeVMTests.steps + PublishVMTests.steps)
    /// Cameras a producer feeds through v4l2loopback (MJPEG, H.264, codes), the memory-to-memory decoder,
    /// the virtual camera and its readers, two cameras composed, and the display bench.
    static let loopback = VMBoot(name: "loopback", vmArguments: ["--loopback"],
                                 steps: MJPEGVMTests.steps + H264VMTests.steps + CodeCameraVMTests.steps + V4L2DecoderVMTests.steps
                                     + VirtualCameraVMTests.steps + BrowserCameraVMTests.steps + CompositionVMTests.steps
                                     + DisplayBenchVMTests.steps)

    let name: String
    let vmArguments: [String]
    let steps: [VMStep]
    private let lock = NSLock()
    private var runs: [String: VMScriptRun]?

    init(name: String, vmArguments: [String] = [], steps: [VMStep]) {
        (self.name, self.vmArguments, self.steps) = (name, vmArguments, steps)
        precondition(Set(steps.map(\.name)).count == steps.count, "VM steps need unique names")
    }

    /// What `step` wrote; the boot is made at the first call.
    func run(_ step: String) -> VMScriptRun {
        lock.lock()
        defer { lock.unlock() }
        if runs == nil { runs = boot() }
        guard let run = runs?[step] else {
            return VMScriptRun(failedStep: step, log: "no step \(step) in the \(name) VM boot, or its class was not selected")
        }
        return run
    }

    /// The test classes this process runs, from the test specifiers SwiftPM
    /// passes it (`Module.Class/test,...`); nil when it runs them all.
    static let selectedClasses: Set<String>? = {
        let specifiers = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("-") }
            .flatMap { $0.split(separator: ",") }.map(String.init)
        guard !specifiers.isEmpty else { return nil }
        return Set(specifiers.map { specifier in
            let test = specifier.split(separator: "/").first.map(String.init) ?? specifier
            return test.split(separator: ".").last.map(String.init) ?? test
        })
    }()

    private func boot() -> [String: VMScriptRun] {
        let chosen = steps.filter { step in Self.selectedClasses.map { !$0.isDisjoint(with: step.owners) } ?? true }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-vm-\(name)-\(UUID().uuidString)")
        var runs: [String: VMScriptRun] = [:]
        var ready: [VMStep] = []
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            return Dictionary(uniqueKeysWithValues: chosen.map { ($0.name, VMScriptRun(failedStep: $0.name, log: "\(error)")) })
        }
        for step in chosen {
            let folder = root.appendingPathComponent(step.name)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                for (file, text) in step.files { try text.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8) }
                try step.script.write(to: folder.appendingPathComponent("step.sh"), atomically: true, encoding: .utf8)
                if step.prepare == nil { try Data().write(to: root.appendingPathComponent("\(step.name).prepared")) }
                ready.append(step)
            } catch {
                runs[step.name] = VMScriptRun(failedStep: step.name, log: "its folder could not be written: \(error)")
            }
        }
        guard !ready.isEmpty else { return runs }
        // The host's work for the steps (a package built, references rendered) goes on while the VM
        // boots and runs the steps before theirs: each step waits for its NAME.prepared beside its folder.
        let prepared = DispatchSemaphore(value: 0), toPrepare = ready
        Thread {
            for step in toPrepare {
                guard let prepare = step.prepare else { continue }
                let folder = root.appendingPathComponent(step.name)
                do {
                    try prepare(folder)
                    try? Data().write(to: root.appendingPathComponent("\(step.name).prepared"))
                } catch {
                    try? "its preparation on the host failed: \(error)".write(to: root.appendingPathComponent("\(step.name).prepare-failed"),
                                                                               atomically: true, encoding: .utf8)
                }
            }
            prepared.signal()
        }.start()
        defer { prepared.wait() }
        let runner = Self.runner + ready.map { "step \($0.name) '\($0.vivid)' \($0.loopback ? 1 : 0) \($0.timeout)" }.joined(separator: "\n")
        // The boot may take every step's limit and a few minutes to start; each step's own limit catches its hang.
        let limit = ready.map(\.timeout).reduce(300, +)
        let started = Date()
        let log: String
        do {
            log = try VMTests.run(["bash", "-c", runner], vmArguments: vmArguments + ["--timeout", "\(limit)"], in: root).log
        } catch {
            log = "\(error)"
        }
        let seconds = Date().timeIntervalSince(started)
        let times = (try? String(contentsOf: root.appendingPathComponent("steps.tsv"), encoding: .utf8)) ?? ""
        print("VM boot \(name): \(ready.count) steps in \(String(format: "%.0f", seconds)) s\n" + times)
        Self.report(boot: name, seconds: seconds, steps: times)
        for step in ready {
            runs[step.name] = VMScriptRun(step: step.name, folder: root.appendingPathComponent(step.name), bootLog: log)
        }
        return runs
    }

    /// Appends the boot's and its steps' times to the test report
    /// (`KAMERA_TEST_REPORT`, set by scripts/test.sh): `vm-steps.tsv`, one
    /// line a step (boot, step, exit status, seconds), the boot's total as step `(boot)`.
    private static func report(boot: String, seconds: Double, steps: String) {
        guard let folder = ProcessInfo.processInfo.environment["KAMERA_TEST_REPORT"], !folder.isEmpty else { return }
        var lines = steps.split(separator: "\n").map { "\(boot)\t" + $0.split(separator: " ").joined(separator: "\t") }
        lines.append("\(boot)\t(boot)\t-\t" + String(format: "%.1f", seconds))
        let path = URL(fileURLWithPath: folder).appendingPathComponent("vm-steps.tsv").path
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.seekToEndOfFile()
        handle.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        handle.closeFile()
    }

    /// The script the VM runs: `step NAME VIVID LOOPBACK SECONDS` for each
    /// step, in turn. Before a step: v4l2loopback unloaded, vivid loaded anew
    /// with the step's parameters, v4l2loopback loaded anew if it asks; the
    /// step runs in a session of its own under its time limit (traced with the
    /// time into its trace.log, as `VMScriptRun.tracing` says); after it,
    /// whatever it left running is killed and the modules it loaded are unloaded.
    static let runner = #"""
    set -u
    ROOT=$PWD
    ARGS="" NODE=""
    [ -f /run/run-in-vm/loopback-reload ] && eval "$(grep -E '^(ARGS|NODE)=' /run/run-in-vm/loopback-reload)"
    settle() { local i; for i in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done; echo "$1 did not appear"; return 1; }
    drivers() {
      local i
      if [ -d /sys/module/v4l2loopback ]; then
        for i in $(seq 50); do rmmod v4l2loopback 2>/dev/null && break; sleep 0.1; done
      fi
      for i in $(seq 50); do modprobe -r vivid 2>/dev/null && break; sleep 0.1; done
      [ -d /sys/module/vivid ] && { echo "vivid is still loaded (in use)"; return 1; }
      modprobe vivid $1 || return 1
      settle /dev/video0 || return 1
      if [ "$2" = 1 ]; then
        set -f; insmod /run/run-in-vm/v4l2loopback.ko $ARGS || return 1; set +f
        settle "$NODE" || return 1
      fi
    }
    modules() { cut -d' ' -f1 /proc/modules; }
    step() {
      local name=$1 start rc sid m
      start=$(date +%s%N)
      cd "$ROOT/$name"
      # The host's preparation for this step, if any, may still be running.
      for m in $(seq 18000); do [ -e "../$name.prepared" ] || [ -e "../$name.prepare-failed" ] && break; sleep 0.1; done
      if [ ! -e "../$name.prepared" ]; then
        rc=125; { echo "not run:"; cat "../$name.prepare-failed" 2>/dev/null || echo "its preparation on the host did not end"; } > step.log
      elif drivers "$2" "$3" > drivers.log 2>&1; then
        modules > modules-before.txt
        setsid timeout -k 10 "$4" bash -c "$TRACING"'. ./step.sh' > step.log 2>&1 < /dev/null &
        sid=$!
        wait $sid; rc=$?
        pkill -KILL -s $sid 2>/dev/null
        sleep 0.2
        # Modules the step loaded, newest first (as /proc/modules lists them).
        for m in $(modules | grep -vxF -f modules-before.txt); do rmmod "$m" 2>/dev/null; done
      else
        rc=125; { echo "the drivers could not be set up for this step:"; cat drivers.log; } > step.log
      fi
      echo $rc > step.rc
      echo "$name $rc $(( ($(date +%s%N) - start) / 1000000 ))" | awk '{ printf "%s %s %.1f\n", $1, $2, $3 / 1000 }' >> "$ROOT/steps.tsv"
      cd "$ROOT"
    }

    """# + "TRACING=\(shellQuoted(VMScriptRun.tracing))\n"

    /// `text` in single quotes for bash.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
