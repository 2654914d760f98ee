import Lifecycle
import CDRM
import Glibc

extension DisplayCard {
    /// Registers a buffer as a KMS framebuffer. With no modifier (GBM said
    /// `DRM_FORMAT_MOD_INVALID`) it is added without one: some drivers (vkms
    /// on Linux 6.1) take an explicit INVALID modifier at AddFB2 and then
    /// refuse the framebuffer at mode set.
    public func addFramebuffer(width: Int, height: Int, format: UInt32, handle: UInt32, pitch: UInt32,
                               offset: UInt32, modifier: UInt64?) throws -> UInt32 {
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (pitch, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (offset, 0, 0, 0)
        var modifiers: (UInt64, UInt64, UInt64, UInt64) = (modifier ?? 0, 0, 0, 0)
        var id: UInt32 = 0
        let result = withUnsafeMutableBytes(of: &handles) { h in
            withUnsafeMutableBytes(of: &pitches) { p in
                withUnsafeMutableBytes(of: &offsets) { o in
                    withUnsafeMutableBytes(of: &modifiers) { m in
                        let h = h.baseAddress!.assumingMemoryBound(to: UInt32.self)
                        let p = p.baseAddress!.assumingMemoryBound(to: UInt32.self)
                        let o = o.baseAddress!.assumingMemoryBound(to: UInt32.self)
                        if modifier != nil {
                            return drmModeAddFB2WithModifiers(node.fd, UInt32(width), UInt32(height), format, h, p, o,
                                                              m.baseAddress!.assumingMemoryBound(to: UInt64.self), &id,
                                                              UInt32(DRM_MODE_FB_MODIFIERS))
                        }
                        return drmModeAddFB2(node.fd, UInt32(width), UInt32(height), format, h, p, o, &id, 0)
                    }
                }
            }
        }
        guard result == 0 else {
            throw DRMError("\(path): cannot make a \(width)x\(height) framebuffer: \(DRMError.reason(errno))")
        }
        return id
    }

    public func removeFramebuffer(_ id: UInt32) {
        drmModeRmFB(node.fd, id)
    }

    /// Becomes DRM master of the card, which mode setting needs; fails when
    /// another process (a display server, another Kamera) holds it.
    public func becomeMaster() throws {
        if drmIsMaster(node.fd) != 0 { return }
        guard drmSetMaster(node.fd) == 0 else {
            let holders = FileHolders.of(path)
            if let other = holders.first(where: { $0.name == "kamera" }) {
                throw DRMError("another Kamera (pid \(other.pid)) shows on \(path); stop it first (q or Ctrl-C where it runs, or kill -TERM \(other.pid))")
            }
            let named = holders.isEmpty ? "" : " (\(holders.map { "\($0.name), pid \($0.pid)" }.joined(separator: "; ")))"
            throw DRMError("another display server holds \(path)\(named); switch to a text console with Ctrl-Alt-F2 or stop it")
        }
    }
}
