import Capture
import CommandLineSupport
import ArgumentParser
import Foundation
import Pipeline

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the V4L2 cameras: node, card, driver, bus, capabilities, whether in use; with --formats their formats, sizes and rates; with --audio the sound capture devices.",
        discussion: """
        Examples:
          kamera devices
          kamera devices --formats --json
          kamera devices --audio
        """)

    @Argument(help: "One device to describe (default: every camera).")
    var device: String?

    @Option(name: [.customShort("d"), .customLong("device")], help: "The same as the device argument (v4l2-ctl's and fswebcam's -d).")
    var deviceOption: String?

    @Flag(name: [.long, .customLong("list-formats-ext"), .customLong("list-formats")],
          help: "List pixel formats, frame sizes and frame rates too (v4l2-ctl's --list-formats-ext).")
    var formats = false

    @Flag(help: "Print JSON for scripts.")
    var json = false

    @Flag(help: "List the ALSA sound capture devices (card, device, name) instead: what --audio records from.")
    var audio = false

    struct Entry: Encodable {
        var device: CameraInfo
        var formats: [CameraFormat]?
        /// For cameras with raw Bayer formats: the black level Kamera takes when --black-level is not given.
        var rawBlackLevel: String?
    }

    func run() throws {
        if audio {
            let devices = AudioDevice.list()
            if json { return try printJSON(devices) }
            let named = AudioDevice.named(cards: devices)
            if devices.isEmpty && named.isEmpty { print("no sound capture devices found (no ALSA card with a capture PCM)") }
            for pcm in named { print("\(pcm.name): \(pcm.description)") }
            for d in devices { print("\(d.name): \(d.pcmName) (card \(d.card) \(d.cardID): \(d.cardName), device \(d.device))") }
            return
        }
        let device = try DeviceArgument.one(device, deviceOption)
        let infos: [CameraInfo]
        if let device {
            infos = [try CameraDevice(path: device).info()]
        } else {
            infos = CameraDevice.list()
        }
        let entries = try infos.map { info in
            let list = formats || device != nil ? try CameraDevice(path: info.path).formats(libv4l: true) : nil
            let bits = Set((list ?? []).compactMap { $0.repacked?.mosaic?.bits }).sorted()
            return Entry(device: info, formats: list, rawBlackLevel: bits.isEmpty ? nil : SensorBlackLevel.summary(camera: info.path, bits: bits))
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
            if let black = entry.rawBlackLevel { print("  raw Bayer \(black)") }
            for f in entry.formats ?? [] {
                let reads = f.howRead
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

    @Option(name: [.customShort("d"), .customLong("device")], help: "The same as the camera argument (v4l2-ctl's -d).")
    var deviceOption: String?

    @Option(name: [.customLong("set"), .customLong("set-ctrl")],
            help: "NAME=VALUE to set, repeatable; names as listed, case-insensitive (e.g. brightness=140). All are checked before any is set.")
    var assignments: [String] = []

    @Flag(help: "Print JSON for scripts (the controls, or those set with their values read back).")
    var json = false

    /// A control as `--json` prints it.
    struct Entry: Encodable {
        var name: String, label: String, type: String
        var minimum: Int64?, maximum: Int64?, step: Int64?, defaultValue: Int64, value: Int64?
        var readOnly: Bool, inactive: Bool
        var menu: [String: String]?

        init(_ c: CameraControl) {
            (name, label, type) = (c.name, c.label, c.kind.rawValue)
            let ranged = c.kind != .boolean && c.kind != .button
            (minimum, maximum, step) = ranged ? (c.minimum, c.maximum, c.step) : (nil, nil, nil)
            (defaultValue, value, readOnly, inactive) = (c.defaultValue, c.value, c.readOnly, c.inactive)
            menu = c.menu.isEmpty ? nil : Dictionary(c.menu.map { (String($0.index), $0.name) }, uniquingKeysWith: { a, _ in a })
        }
    }

    func run() throws {
        let device = try DeviceArgument.one(device, deviceOption)
        let path = try device ?? (CameraDevice.list().first?.path).orThrow(UsageError("no cameras found; give a device such as /dev/video0"))
        let camera = try CameraDevice(path: path)
        if !assignments.isEmpty {
            let set = try camera.setControls(assignments)
            if json { return try printJSON(set.map(Entry.init)) }
            for c in set { print("\(c.name) = \(c.value.map(String.init) ?? "?")") }
            return
        }
        if json { return try printJSON(camera.controls().map(Entry.init)) }
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

/// A device named as an argument or with `-d`/`--device`, as v4l2-ctl and fswebcam take it.
enum DeviceArgument {
    static func one(_ argument: String?, _ option: String?) throws -> String? {
        if let argument, let option, argument != option {
            throw UsageError("two devices named (\(argument) and -d \(option)); give one")
        }
        return argument ?? option
    }
}

extension Optional {
    func orThrow(_ error: @autoclosure () -> Error) throws -> Wrapped {
        guard let value = self else { throw error() }
        return value
    }
}
