import CDRM
import Glibc

/// Memory allocated by a DRM device (a "dumb" buffer), shared as a dma-buf:
/// the camera fills it (`V4L2_MEMORY_DMABUF`) and the GPU reads it as an
/// EGLImage, with no copy in between. It is also mapped for the CPU, which the
/// copy path and `--save-input` read.
public final class DumbBuffer {
    /// The dma-buf file descriptor (PRIME export).
    public let fd: Int32
    public let bytes: UnsafeMutableRawBufferPointer
    private let device: DRMNode
    private let handle: UInt32

    /// At least `size` bytes on `device`.
    public init(device: DRMNode, size: Int) throws {
        self.device = device
        var create = drm_mode_create_dumb()
        // One byte per pixel, rows of 4096 bytes: only the size matters, the
        // camera writes with its own stride.
        create.bpp = 8
        create.width = 4096
        create.height = UInt32((size + 4095) / 4096)
        guard drmIoctl(device.fd, KAMERA_DRM_IOCTL_MODE_CREATE_DUMB, &create) == 0 else {
            throw DRMError("\(device.path): cannot allocate a \(size)-byte buffer: \(DRMError.reason(errno))")
        }
        handle = create.handle
        var prime: Int32 = -1
        guard drmPrimeHandleToFD(device.fd, create.handle, UInt32(DRM_CLOEXEC | DRM_RDWR), &prime) == 0 else {
            let e = errno
            Self.destroy(handle: create.handle, on: device)
            throw DRMError("\(device.path): cannot export a buffer as dma-buf: \(DRMError.reason(e))")
        }
        var map = drm_mode_map_dumb()
        map.handle = create.handle
        let length = Int(create.size)
        guard drmIoctl(device.fd, KAMERA_DRM_IOCTL_MODE_MAP_DUMB, &map) == 0,
              let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, off_t(map.offset)),
              address != MAP_FAILED else {
            let e = errno
            close(prime)
            Self.destroy(handle: create.handle, on: device)
            throw DRMError("\(device.path): cannot map a buffer: \(DRMError.reason(e))")
        }
        fd = prime
        bytes = UnsafeMutableRawBufferPointer(start: address, count: length)
    }

    deinit {
        munmap(bytes.baseAddress, bytes.count)
        close(fd)
        Self.destroy(handle: handle, on: device)
    }

    private static func destroy(handle: UInt32, on device: DRMNode) {
        var destroy = drm_mode_destroy_dumb(handle: handle)
        drmIoctl(device.fd, KAMERA_DRM_IOCTL_MODE_DESTROY_DUMB, &destroy)
    }
}
