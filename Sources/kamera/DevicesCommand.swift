import Capture
import CommandLineSupport
import ArgumentParser
import Foundation
import Pipeline

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the V4L2 cameras: node, card, driver, bus, capabilities, whether in use; with --formats their formats, sizes and rates.")

    @Argument(help: "One device to describe (default: every camera).")
    var device: String?

    @Flag(help: "List pixel formats, frame sizes and frame rates too.")
    var formats = false

    @Flag(help: "Print JSON for scripts.")
    var json = false

    struct Entry: Encodable {
        var device: CameraInfo
        var formats: [CameraFormat]?
    }

    func run() throws {
        let infos: [CameraInfo]
        if let device {
            infos = [try CameraDevice(path: device).info()]
        } else {
            infos = CameraDevice.list()
        }
        let entries = try infos.map { info in
            Entry(device: info, formats: formats || device != nil ? try CameraDevice(path: info.path).formats() : nil)
        }
        if json {
            try printJSON(entries)
            return
        }
        if entries.isEmpty {
            print("no cameras found (no /dev/videoN that can capture video)")
            return
        }
        for entry in entries {
            let d = entry.device
            print("\(d.path): \(d.card) (driver \(d.driver), bus \(d.busInfo))\(d.busy ? " [in use]" : "")")
            print("  capabilities: \(d.capabilities.joined(separator: ", "))")
            for f in entry.formats ?? [] {
                let reads = f.pixelFormat.map { "read as \($0.name)" } ?? "not read by Kamera"
                print("  \(f.fourcc)  \(f.description)  (\(reads))")
                for s in f.sizes {
                    let rates = s.rates.map { CameraMode.formatRate($0) }.joined(separator: ", ")
                    print("    \(s.width)x\(s.height)\(rates.isEmpty ? "" : "  \(rates) fps")")
                }
            }
        }
    }
}

struct ControlsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controls",
        abstract: "List a camera's controls (type, range, step, default, value, menu entries), or set them with --set.")

    @Argument(help: "The camera (default: the first one).")
    var device: String?

    @Option(name: .customLong("set"), help: "NAME=VALUE to set, repeatable; names as listed, case-insensitive (e.g. brightness=140).")
    var assignments: [String] = []

    func run() throws {
        let path = try device ?? (CameraDevice.list().first?.path).orThrow(UsageError("no cameras found; give a device such as /dev/video0"))
        let camera = try CameraDevice(path: path)
        if !assignments.isEmpty {
            for a in assignments {
                let c = try camera.setControl(a)
                print("\(c.name) = \(c.value.map(String.init) ?? "?")")
            }
            return
        }
        for c in camera.controls() {
            var line = "\(c.name.padded(32)) (\(c.kind.rawValue))"
            switch c.kind {
            case .button: break
            case .boolean: line += " default=\(c.defaultValue) value=\(c.value.map(String.init) ?? "?")"
            default: line += " min=\(c.minimum) max=\(c.maximum) step=\(c.step) default=\(c.defaultValue) value=\(c.value.map(String.init) ?? "?")"
            }
            if c.readOnly { line += " read-only" }
            if c.inactive { line += " inactive" }
            print(line)
            for item in c.menu { print("    \(item.index): \(item.name)") }
        }
    }
}

extension Optional {
    func orThrow(_ error: @autoclosure () -> Error) throws -> Wrapped {
        guard let value = self else { throw error() }
        return value
    }
}
