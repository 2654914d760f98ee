import CDRM
import Glibc
import Messages

/// An open DRM device node (`/dev/dri/cardN`), kept open while buffers,
/// framebuffers or a mode set on it live. GEM handles belong to one open
/// file, so everything that shares buffers (GBM, KMS) uses this one.
public final class DRMNode {
    public let path: String
    public let fd: Int32
    /// The kernel driver's name, e.g. "vkms", "i915".
    public let driverName: String

    /// Opens `path`; with `needsDumbBuffers` it must be able to allocate them.
    public init(path: String, needsDumbBuffers: Bool = true) throws {
        fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw Self.openError(path, errno) }
        self.path = path
        guard let version = drmGetVersion(fd) else {
            close(fd)
            throw DRMError("\(path): not a DRM device; the display cards are /dev/dri/cardN (see `kamera displays`)")
        }
        driverName = version.pointee.name.map { String(cString: $0) } ?? "unknown"
        drmFreeVersion(version)
        if needsDumbBuffers {
            var capability: UInt64 = 0
            guard drmGetCap(fd, UInt64(DRM_CAP_DUMB_BUFFER), &capability) == 0, capability != 0 else {
                close(fd)
                throw DRMError("\(path) cannot allocate dumb buffers")
            }
        }
    }

    deinit { close(fd) }

    /// The card nodes present, `/dev/dri/card0` first.
    public static func cards() -> [String] {
        (0..<16).map { "/dev/dri/card\($0)" }.filter { access($0, F_OK) == 0 }
    }

    /// The first `/dev/dri/cardN` that can allocate dumb buffers.
    public static func firstWithDumbBuffers() -> String? {
        cards().first { access($0, R_OK | W_OK) == 0 && (try? DRMNode(path: $0)) != nil }
    }

    private static func openError(_ path: String, _ error: Int32) -> DRMError {
        switch error {
        case ENOENT:
            let cards = cards()
            return DRMError("\(path): no such device; \(cards.isEmpty ? "this machine has no DRM display device (/dev/dri/cardN): load the display driver, or render to PNG with \(Setting.output) FILE" : "the cards here are \(cards.joined(separator: ", "))")")
        case EACCES, EPERM:
            var info = stat()
            var group = "video"
            if stat(path, &info) == 0, let entry = getgrgid(info.st_gid), let name = entry.pointee.gr_name {
                group = String(cString: name)
            }
            return DRMError("\(path): permission denied; add yourself to the '\(group)' group (sudo usermod -aG \(group) $USER, then log in again) or run as root")
        default:
            return DRMError("\(path): \(DRMError.reason(error))")
        }
    }
}
