import CV4L2
import Glibc
import Messages

/// A V4L2 control (brightness, focus, zoom...), as `VIDIOC_QUERY_EXT_CTRL` describes it.
public struct CameraControl: Equatable, Sendable {
    public enum Kind: String, Sendable { case integer, boolean, menu, button, integer64, string, bitmask, integerMenu = "intmenu", other }

    public var id: UInt32
    /// The name as the driver gives it, e.g. "Focus, Automatic Continuous".
    public var label: String
    /// The name users type: lowercase with underscores, e.g. `focus_automatic_continuous`.
    public var name: String
    public var kind: Kind
    public var minimum: Int64
    public var maximum: Int64
    public var step: Int64
    public var defaultValue: Int64
    /// The current value, nil when it cannot be read (write-only or 64-bit).
    public var value: Int64?
    /// Menu entries by index.
    public var menu: [(index: Int64, name: String)]
    public var readOnly: Bool
    public var inactive: Bool

    public init(id: UInt32, label: String, name: String, kind: Kind, minimum: Int64, maximum: Int64, step: Int64,
                defaultValue: Int64, value: Int64?, menu: [(index: Int64, name: String)], readOnly: Bool, inactive: Bool) {
        self.id = id
        self.label = label
        self.name = name
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.value = value
        self.menu = menu
        self.readOnly = readOnly
        self.inactive = inactive
    }

    public static func == (a: CameraControl, b: CameraControl) -> Bool {
        a.id == b.id && a.value == b.value && a.name == b.name && a.minimum == b.minimum && a.maximum == b.maximum
    }

    /// `Focus, Automatic Continuous` → `focus_automatic_continuous`, as v4l2-ctl prints names.
    public static func normalizedName(_ label: String) -> String {
        var out = ""
        for c in label.lowercased() {
            if c.isLetter || c.isNumber { out.append(c) } else if !out.hasSuffix("_") && !out.isEmpty { out.append("_") }
        }
        while out.hasSuffix("_") { out.removeLast() }
        return out
    }

    /// Parses `value` for this control: a number, on/off/true/false for booleans,
    /// or a menu entry's index or name; any value presses a button. Checks range and step.
    public func parse(_ text: String) throws -> Int64 {
        if readOnly { throw CaptureError("control '\(name)' is read-only") }
        let lower = text.lowercased()
        var parsed: Int64?
        switch kind {
        case .button:
            return 0  // pressing a button: the value is not used
        case .boolean:
            parsed = ["1", "true", "on", "yes"].contains(lower) ? 1 : ["0", "false", "off", "no"].contains(lower) ? 0 : nil
        case .menu, .integerMenu:
            parsed = Int64(text) ?? menu.first { Self.normalizedName($0.name) == Self.normalizedName(text) }?.index
            if let p = parsed, !menu.contains(where: { $0.index == p }) { parsed = nil }
            if parsed == nil {
                let entries = menu.map { "\($0.index) (\($0.name))" }.joined(separator: ", ")
                throw CaptureError("\(name)=\(text): not a menu entry; use one of \(entries)")
            }
        default:
            parsed = Int64(text)
        }
        guard let v = parsed else {
            throw CaptureError("\(name)=\(text): not a valid \(kind.rawValue) value; the range is \(minimum)...\(maximum)")
        }
        guard v >= minimum && v <= maximum else {
            throw CaptureError("\(name)=\(text) is out of range; the range is \(minimum)...\(maximum)\(step > 1 ? " in steps of \(step)" : "")")
        }
        // The distance from the minimum fits in 64 bits unsigned even when the signed subtraction would overflow.
        if step > 1 && UInt64(bitPattern: v &- minimum) % UInt64(step) != 0 {
            throw CaptureError("\(name)=\(text) is not on the control's step; use \(minimum) + a multiple of \(step)")
        }
        return v
    }
}

extension CameraControl.Kind {
    init(v4l2 type: UInt32) {
        switch type {
        case V4L2_CTRL_TYPE_INTEGER.rawValue: self = .integer
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: self = .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: self = .menu
        case V4L2_CTRL_TYPE_BUTTON.rawValue: self = .button
        case V4L2_CTRL_TYPE_INTEGER64.rawValue: self = .integer64
        case V4L2_CTRL_TYPE_STRING.rawValue: self = .string
        case V4L2_CTRL_TYPE_BITMASK.rawValue: self = .bitmask
        case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: self = .integerMenu
        default: self = .other
        }
    }
}

extension CameraDevice {
    /// Every control of the device, control-class headings left out.
    public func controls() -> [CameraControl] {
        var controls: [CameraControl] = []
        var query = v4l2_query_ext_ctrl()
        query.id = KAMERA_CTRL_FLAG_NEXT
        while V4L2.ioctl(fd, KAMERA_VIDIOC_QUERY_EXT_CTRL, &query) == 0 {
            defer { query.id |= KAMERA_CTRL_FLAG_NEXT }
            guard query.type != V4L2_CTRL_TYPE_CTRL_CLASS.rawValue, query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else { continue }
            let kind = CameraControl.Kind(v4l2: query.type)
            let label = V4L2.string(query.name)
            var control = CameraControl(
                id: query.id, label: label, name: CameraControl.normalizedName(label), kind: kind,
                minimum: query.minimum, maximum: query.maximum, step: Int64(clamping: query.step), defaultValue: query.default_value,
                value: nil, menu: [], readOnly: query.flags & UInt32(V4L2_CTRL_FLAG_READ_ONLY) != 0,
                inactive: query.flags & UInt32(V4L2_CTRL_FLAG_INACTIVE) != 0)
            if kind == .menu || kind == .integerMenu { control.menu = menu(query, integer: kind == .integerMenu) }
            if [.integer, .boolean, .menu, .integerMenu].contains(kind) && query.flags & UInt32(V4L2_CTRL_FLAG_WRITE_ONLY) == 0 {
                var value = v4l2_control(id: query.id, value: 0)
                if V4L2.ioctl(fd, KAMERA_VIDIOC_G_CTRL, &value) == 0 { control.value = Int64(value.value) }
            }
            controls.append(control)
        }
        return controls
    }

    /// One control's current value (`VIDIOC_G_CTRL`); nil when it cannot be read.
    public func value(ofControl id: UInt32) -> Int64? {
        var value = v4l2_control(id: id, value: 0)
        return V4L2.ioctl(fd, KAMERA_VIDIOC_G_CTRL, &value) == 0 ? Int64(value.value) : nil
    }

    private func menu(_ query: v4l2_query_ext_ctrl, integer: Bool) -> [(index: Int64, name: String)] {
        guard query.minimum >= 0, query.maximum < 1024 else { return [] }
        var entries: [(index: Int64, name: String)] = []
        for i in query.minimum...query.maximum {
            var item = v4l2_querymenu()
            item.id = query.id
            item.index = UInt32(i)
            if V4L2.ioctl(fd, KAMERA_VIDIOC_QUERYMENU, &item) == 0 {
                entries.append((i, integer ? String(item.value) : V4L2.string(item.name)))
            }
        }
        return entries
    }

    /// Sets `name=value` (names as `controls()` prints them, case-insensitive);
    /// returns the control with the value read back.
    @discardableResult
    public func setControl(_ assignment: String) throws -> CameraControl {
        try setControls([assignment])[0]
    }

    /// Sets every `name=value`, in order, after checking them all: a bad name
    /// or value anywhere sets none. Returns the controls with their values read back.
    public func setControls(_ assignments: [String]) throws -> [CameraControl] {
        let all = controls()
        let checked = try assignments.map { assignment -> (CameraControl, Int64, String) in
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw CaptureError(.controlAssignment, "\(assignment)", because: "use NAME=VALUE, e.g. brightness=140", "nothing was set")
            }
            let wanted = CameraControl.normalizedName(parts[0])
            guard let control = all.first(where: { $0.name == wanted }) else {
                throw CaptureError("\(path) has no control '\(parts[0])'; nothing was set; its controls: \(all.map(\.name).joined(separator: ", "))")
            }
            return (control, try control.parse(parts[1]), parts[1])
        }
        for (control, value, text) in checked { try setControl(control, to: value, as: text) }
        let after = controls()
        return checked.map { c in after.first { $0.id == c.0.id } ?? c.0 }
    }

    /// Sets one control by its id (one ioctl, no listing): for values set
    /// frame after frame, such as a zoom ramp. `text` is the value as the user
    /// wrote it, for the error message.
    public func setControl(_ control: CameraControl, to value: Int64, as text: String? = nil) throws {
        var c = v4l2_control(id: control.id, value: Int32(truncatingIfNeeded: value))
        let e = V4L2.ioctl(fd, KAMERA_VIDIOC_S_CTRL, &c)
        guard e == 0 else {
            let reason = e == EBUSY ? "the device is busy (another program holds it)" : e == EACCES ? "the control is read-only or inactive now" : V4L2.message(e)
            throw CaptureError("\(path): cannot set \(control.name)=\(text ?? String(value)): \(reason)")
        }
    }
}
