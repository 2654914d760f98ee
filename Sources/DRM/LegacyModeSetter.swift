import CDRM
import Glibc

/// Mode setting with the pre-atomic calls: `drmModeSetCrtc`, then
/// `drmModePageFlip` with an event.
public final class LegacyModeSetter: ModeSetter {
    private let card: DisplayCard
    private let choice: DisplayChoice

    public init(card: DisplayCard, choice: DisplayChoice) {
        self.card = card
        self.choice = choice
    }

    public var name: String { "legacy" }
    public var takesInFences: Bool { false }

    public func setMode(framebuffer: UInt32) throws {
        var connector = choice.connector.id
        var mode = choice.mode.info
        guard drmModeSetCrtc(card.node.fd, choice.crtcID, framebuffer, 0, 0, &connector, 1, &mode) == 0 else {
            throw DRMError("\(card.path): cannot set mode \(choice.mode) on \(choice.connector.name): \(DRMError.reason(errno))")
        }
    }

    public func requestFlip(framebuffer: UInt32, inFence: Int32?, userData: UnsafeMutableRawPointer?) throws {
        if let inFence { close(inFence) }
        guard drmModePageFlip(card.node.fd, choice.crtcID, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), userData) == 0 else {
            throw DRMError("\(card.path): page flip failed: \(DRMError.reason(errno))")
        }
    }
}
