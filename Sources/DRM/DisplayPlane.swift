import CDRM

/// A scanout plane: where a framebuffer is shown on a CRTC.
public struct DisplayPlane: Sendable {
    public enum Kind: String, Sendable { case primary, overlay, cursor }
    public let id: UInt32
    public let kind: Kind
    /// Bit i set: the plane can go on the CRTC at index i.
    public let possibleCRTCs: UInt32
    public let crtcID: UInt32
    public let framebufferID: UInt32
    /// Pixel formats as four-character codes (XR24, AR24, …).
    public let formats: [String]

    init(fd: Int32, plane p: drmModePlane) {
        id = p.plane_id
        possibleCRTCs = p.possible_crtcs
        crtcID = p.crtc_id
        framebufferID = p.fb_id
        formats = (0..<Int(p.count_formats)).map { DisplayPlane.fourCC(p.formats[$0]) }
        let type = DRMProperties(fd: fd, object: p.plane_id, type: UInt32(DRM_MODE_OBJECT_PLANE))["type"]?.value
        kind = switch type {
        case UInt64(DRM_PLANE_TYPE_PRIMARY): .primary
        case UInt64(DRM_PLANE_TYPE_CURSOR): .cursor
        default: .overlay
        }
    }

    static func fourCC(_ code: UInt32) -> String {
        String((0..<4).map { Character(UnicodeScalar(UInt8((code >> ($0 * 8)) & 0xFF))) })
    }
}
