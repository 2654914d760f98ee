import CDRM
import Glibc
import Messages

/// A DRM card's display side: its connectors, CRTCs and planes, read once.
public final class DisplayCard {
    public let node: DRMNode
    /// True when the driver takes atomic commits (and they were not refused with `legacy`).
    public let atomic: Bool
    public let connectors: [DisplayConnector]
    /// CRTC ids in the card's order; a CRTC's index is its bit in `possibleCRTCs` masks.
    public let crtcs: [UInt32]
    public let planes: [DisplayPlane]

    /// Opens `path` and reads its display resources; `legacy` keeps to the
    /// pre-atomic interface even where atomic is offered.
    public init(path: String, legacy: Bool = false) throws {
        let node = try DRMNode(path: path, needsDumbBuffers: false)
        self.node = node
        let fd = node.fd
        drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1)
        drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_WRITEBACK_CONNECTORS), 1)
        atomic = !legacy && drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0
        guard let resources = drmModeGetResources(fd) else {
            throw DRMError("\(path) (\(node.driverName)) has no display outputs (a render-only GPU); choose another card with \(Setting.card) (see `kamera displays`)")
        }
        defer { drmModeFreeResources(resources) }
        let r = resources.pointee
        crtcs = (0..<Int(r.count_crtcs)).map { r.crtcs[$0] }
        connectors = (0..<Int(r.count_connectors)).compactMap { i in
            guard let c = drmModeGetConnector(fd, r.connectors[i]) else { return nil }
            defer { drmModeFreeConnector(c) }
            return DisplayConnector(fd: fd, connector: c.pointee)
        }
        var planes: [DisplayPlane] = []
        if let list = drmModeGetPlaneResources(fd) {
            for i in 0..<Int(list.pointee.count_planes) {
                guard let p = drmModeGetPlane(fd, list.pointee.planes[i]) else { continue }
                planes.append(DisplayPlane(fd: fd, plane: p.pointee))
                drmModeFreePlane(p)
            }
            drmModeFreePlaneResources(list)
        }
        self.planes = planes
    }

    public var path: String { node.path }

    /// The first card that has a connected display, for when none is named.
    public static func firstConnected(legacy: Bool = false) throws -> DisplayCard {
        let paths = DRMNode.cards()
        guard !paths.isEmpty else {
            throw DRMError("no DRM display device (/dev/dri/cardN) on this machine; load the display driver, or render to PNG with \(Setting.output) FILE")
        }
        var firstError: Error?
        for path in paths {
            do {
                let card = try DisplayCard(path: path, legacy: legacy)
                if card.connectors.contains(where: { $0.connected && !$0.isWriteback }) { return card }
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
        throw DRMError("no display is connected to \(paths.joined(separator: ", ")); plug one in, or choose a card with \(Setting.card)")
    }

    /// The connector, mode and CRTC to use: `connector` by name or id (nil:
    /// the first connected), `mode` as `WxH` or `WxH@Hz` (nil: the preferred).
    public func choose(connector name: String?, mode wanted: String?) throws -> DisplayChoice {
        let outputs = connectors.filter { !$0.isWriteback }
        let list = outputs.map { "\($0.name) (\($0.status))" }.joined(separator: ", ")
        let connector: DisplayConnector
        if let name {
            guard let found = outputs.first(where: { $0.name.lowercased() == name.lowercased() || String($0.id) == name }) else {
                throw DRMError(.connector, "\(name)", because: "\(path) has no such connector", "it has \(list)")
            }
            guard found.connected else { throw DRMError(.connector, "\(name)", because: "nothing is connected to it", "connected ones: \(connectedList)") }
            connector = found
        } else {
            guard let found = outputs.first(where: \.connected) else {
                throw DRMError("\(path) has no connected connector (\(list.isEmpty ? "none at all" : list)); plug a display in, or choose another card with \(Setting.card)")
            }
            connector = found
        }
        let offered = connector.modeNames
        let mode: DisplayMode
        if let wanted {
            guard let request = DisplayChoice.parseMode(wanted) else {
                throw DRMError("\(Setting.mode) \(wanted) is not a mode; use WxH or WxH@Hz, e.g. \(offered.first ?? "1920x1080@60")")
            }
            guard let found = connector.modes.first(where: { $0.matches(width: request.width, height: request.height, refresh: request.refresh) }) else {
                throw DRMError(.mode, "\(wanted)", because: "\(connector.name) does not offer it", "it offers \(Self.summarize(offered))")
            }
            mode = found
        } else {
            guard let preferred = connector.preferredMode else { throw DRMError("\(connector.name) offers no mode") }
            mode = preferred
        }
        let index: Int
        if let current = connector.currentCRTC, let i = crtcs.firstIndex(of: current) {
            index = i
        } else if let i = crtcs.indices.first(where: { connector.possibleCRTCs & (1 << UInt32($0)) != 0 }) {
            index = i
        } else {
            throw DRMError("\(connector.name) on \(path) has no CRTC that can drive it")
        }
        let plane = planes.first { $0.kind == .primary && $0.possibleCRTCs & (1 << UInt32(index)) != 0 }
        return DisplayChoice(connector: connector, mode: mode, crtcID: crtcs[index], crtcIndex: index, primaryPlane: plane?.id)
    }

    private var connectedList: String {
        let names = connectors.filter { $0.connected && !$0.isWriteback }.map(\.name)
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    /// A long mode list cut to its first entries and a count.
    static func summarize(_ modes: [String]) -> String {
        modes.count <= 12 ? modes.joined(separator: ", ") : modes.prefix(12).joined(separator: ", ") + " and \(modes.count - 12) more (see `kamera displays`)"
    }
}

/// Where the picture goes: a connector, its mode, the CRTC and primary plane.
public struct DisplayChoice: Sendable {
    public let connector: DisplayConnector
    public let mode: DisplayMode
    public let crtcID: UInt32
    public let crtcIndex: Int
    public let primaryPlane: UInt32?

    /// `WxH` or `WxH@Hz`.
    public static func parseMode(_ text: String) -> (width: Int, height: Int, refresh: Double?)? {
        let parts = text.lowercased().split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let w = Int(size[0]), let h = Int(size[1]), w > 0, h > 0 else { return nil }
        if parts.count == 2 {
            guard let r = Double(parts[1]), r.isFinite, r > 0 else { return nil }
            return (w, h, r)
        }
        return (w, h, nil)
    }
}
