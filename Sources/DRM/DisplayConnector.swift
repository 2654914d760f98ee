import CDRM

/// A display output of a card (HDMI-A-1, eDP-1, Virtual-1) and what is plugged in.
public struct DisplayConnector: Sendable {
    public let id: UInt32
    /// The kernel's name: type and number, as in /sys/class/drm (`HDMI-A-1`).
    public let name: String
    public let connected: Bool
    public let status: String
    public let isWriteback: Bool
    public let modes: [DisplayMode]
    /// The CRTC driving it now, if any.
    public let currentCRTC: UInt32?
    /// Bit i set: the CRTC at index i can drive it.
    public let possibleCRTCs: UInt32

    /// The modes as `WxH@Hz`, each once (drivers list variants that print alike), in the driver's order.
    public var modeNames: [String] {
        var names: [String] = []
        for name in modes.map(\.description) where !names.contains(name) { names.append(name) }
        return names
    }

    /// The mode the display asks for, else the first.
    public var preferredMode: DisplayMode? { modes.first(where: \.preferred) ?? modes.first }

    init(fd: Int32, connector c: drmModeConnector) {
        id = c.connector_id
        let type = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown"
        name = "\(type)-\(c.connector_type_id)"
        isWriteback = c.connector_type == UInt32(DRM_MODE_CONNECTOR_WRITEBACK)
        switch c.connection {
        case DRM_MODE_CONNECTED: (connected, status) = (true, "connected")
        case DRM_MODE_DISCONNECTED: (connected, status) = (false, "disconnected")
        default: (connected, status) = (false, "unknown")
        }
        modes = (0..<Int(c.count_modes)).map { DisplayMode(c.modes[$0]) }
        var crtc: UInt32?
        if c.encoder_id != 0, let encoder = drmModeGetEncoder(fd, c.encoder_id) {
            crtc = encoder.pointee.crtc_id == 0 ? nil : encoder.pointee.crtc_id
            drmModeFreeEncoder(encoder)
        }
        currentCRTC = crtc
        var possible: UInt32 = 0
        for i in 0..<Int(c.count_encoders) {
            if let encoder = drmModeGetEncoder(fd, c.encoders[i]) {
                possible |= encoder.pointee.possible_crtcs
                drmModeFreeEncoder(encoder)
            }
        }
        possibleCRTCs = possible
    }
}
