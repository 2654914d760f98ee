import CDRM
import Messages

/// The KMS properties of one object (connector, CRTC, plane) by name: their
/// ids, which atomic commits set, and their current values.
struct DRMProperties {
    private var byName: [String: (id: UInt32, value: UInt64)] = [:]

    init(fd: Int32, object: UInt32, type: UInt32) {
        guard let list = drmModeObjectGetProperties(fd, object, type) else { return }
        defer { drmModeFreeObjectProperties(list) }
        for i in 0..<Int(list.pointee.count_props) {
            guard let property = drmModeGetProperty(fd, list.pointee.props[i]) else { continue }
            let name = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            byName[name] = (property.pointee.prop_id, list.pointee.prop_values[i])
            drmModeFreeProperty(property)
        }
    }

    subscript(name: String) -> (id: UInt32, value: UInt64)? { byName[name] }

    /// The id of property `name`; throws naming the object when it is missing.
    func id(_ name: String, of object: String) throws -> UInt32 {
        guard let property = byName[name] else { throw DRMError("\(object) has no '\(name)' property; use \(Setting.legacy)") }
        return property.id
    }
}
