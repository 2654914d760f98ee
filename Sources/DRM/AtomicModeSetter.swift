import CDRM
import Glibc
import Messages

/// Mode setting with atomic commits: one commit that sets the mode, the
/// connector's CRTC and the primary plane, then non-blocking commits of the
/// plane's framebuffer with a flip event (and an in-fence when given).
public final class AtomicModeSetter: ModeSetter {
    private let card: DisplayCard
    private let choice: DisplayChoice
    private let plane: UInt32
    private let ids: IDs
    private var modeBlob: UInt32 = 0
    /// Reused for every flip (rewound, not freed), so flips allocate nothing.
    private let flipRequest: drmModeAtomicReqPtr

    private struct IDs {
        var connectorCRTC, crtcMode, crtcActive: UInt32
        var fb, crtc, srcX, srcY, srcW, srcH, crtcX, crtcY, crtcW, crtcH: UInt32
        var inFence: UInt32?
    }

    public init(card: DisplayCard, choice: DisplayChoice) throws {
        guard let plane = choice.primaryPlane else {
            throw DRMError("\(card.path): no primary plane for the CRTC of \(choice.connector.name); use \(Setting.legacy)")
        }
        guard let request = drmModeAtomicAlloc() else { throw DRMError("\(card.path): out of memory for an atomic commit") }
        flipRequest = request
        self.card = card
        self.choice = choice
        self.plane = plane
        let fd = card.node.fd
        let connector = DRMProperties(fd: fd, object: choice.connector.id, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))
        let crtc = DRMProperties(fd: fd, object: choice.crtcID, type: UInt32(DRM_MODE_OBJECT_CRTC))
        let p = DRMProperties(fd: fd, object: plane, type: UInt32(DRM_MODE_OBJECT_PLANE))
        let name = "plane \(plane)"
        ids = IDs(connectorCRTC: try connector.id("CRTC_ID", of: choice.connector.name),
                  crtcMode: try crtc.id("MODE_ID", of: "CRTC \(choice.crtcID)"), crtcActive: try crtc.id("ACTIVE", of: "CRTC \(choice.crtcID)"),
                  fb: try p.id("FB_ID", of: name), crtc: try p.id("CRTC_ID", of: name),
                  srcX: try p.id("SRC_X", of: name), srcY: try p.id("SRC_Y", of: name),
                  srcW: try p.id("SRC_W", of: name), srcH: try p.id("SRC_H", of: name),
                  crtcX: try p.id("CRTC_X", of: name), crtcY: try p.id("CRTC_Y", of: name),
                  crtcW: try p.id("CRTC_W", of: name), crtcH: try p.id("CRTC_H", of: name),
                  inFence: p["IN_FENCE_FD"]?.id)
    }

    deinit {
        drmModeAtomicFree(flipRequest)
        if modeBlob != 0 { drmModeDestroyPropertyBlob(card.node.fd, modeBlob) }
    }

    public var name: String { "atomic" }
    public var takesInFences: Bool { ids.inFence != nil }

    public func setMode(framebuffer: UInt32) throws {
        var mode = choice.mode.info
        if modeBlob == 0 {
            guard drmModeCreatePropertyBlob(card.node.fd, &mode, MemoryLayout<drmModeModeInfo>.size, &modeBlob) == 0 else {
                throw DRMError("\(card.path): cannot create the mode blob: \(DRMError.reason(errno))")
            }
        }
        let w = UInt64(choice.mode.width), h = UInt64(choice.mode.height)
        try commit(flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), what: "set mode \(choice.mode) on \(choice.connector.name)") { request in
            drmModeAtomicAddProperty(request, choice.connector.id, ids.connectorCRTC, UInt64(choice.crtcID))
            drmModeAtomicAddProperty(request, choice.crtcID, ids.crtcMode, UInt64(modeBlob))
            drmModeAtomicAddProperty(request, choice.crtcID, ids.crtcActive, 1)
            drmModeAtomicAddProperty(request, plane, ids.fb, UInt64(framebuffer))
            drmModeAtomicAddProperty(request, plane, ids.crtc, UInt64(choice.crtcID))
            drmModeAtomicAddProperty(request, plane, ids.srcX, 0)
            drmModeAtomicAddProperty(request, plane, ids.srcY, 0)
            drmModeAtomicAddProperty(request, plane, ids.srcW, w << 16)
            drmModeAtomicAddProperty(request, plane, ids.srcH, h << 16)
            drmModeAtomicAddProperty(request, plane, ids.crtcX, 0)
            drmModeAtomicAddProperty(request, plane, ids.crtcY, 0)
            drmModeAtomicAddProperty(request, plane, ids.crtcW, w)
            drmModeAtomicAddProperty(request, plane, ids.crtcH, h)
        }
    }

    public func requestFlip(framebuffer: UInt32, inFence: Int32?, userData: UnsafeMutableRawPointer?) throws {
        defer { if let inFence { close(inFence) } }
        drmModeAtomicSetCursor(flipRequest, 0)
        drmModeAtomicAddProperty(flipRequest, plane, ids.fb, UInt64(framebuffer))
        if let inFence, let property = ids.inFence {
            drmModeAtomicAddProperty(flipRequest, plane, property, UInt64(bitPattern: Int64(inFence)))
        }
        let flags = UInt32(DRM_MODE_ATOMIC_NONBLOCK) | UInt32(DRM_MODE_PAGE_FLIP_EVENT)
        guard drmModeAtomicCommit(card.node.fd, flipRequest, flags, userData) == 0 else {
            throw DRMError("\(card.path): page flip failed (atomic commit): \(DRMError.reason(errno)); try \(Setting.legacy)")
        }
    }

    private func commit(flags: UInt32, what: String, _ fill: (drmModeAtomicReqPtr) -> Void) throws {
        guard let request = drmModeAtomicAlloc() else { throw DRMError("\(card.path): out of memory for an atomic commit") }
        defer { drmModeAtomicFree(request) }
        fill(request)
        guard drmModeAtomicCommit(card.node.fd, request, flags, nil) == 0 else {
            throw DRMError("\(card.path): cannot \(what) (atomic commit): \(DRMError.reason(errno)); try \(Setting.legacy)")
        }
    }
}
