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
            throw CaptureError("\(device.path): cannot allocate a \(size)-byte buffer: \(V4L2.message(errno))")
        }
        handle = create.handle
        var prime: Int32 = -1
        guard drmPrimeHandleToFD(device.fd, create.handle, UInt32(DRM_CLOEXEC | DRM_RDWR), &prime) == 0 else {
            let e = errno
            Self.destroy(handle: create.handle, on: device)
            throw CaptureError("\(device.path): cannot export a buffer as dma-buf: \(V4L2.message(e))")
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
            throw CaptureError("\(device.path): cannot map a buffer: \(V4L2.message(e))")
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

/// An open DRM device node (`/dev/dri/cardN`), kept open while buffers live.
public final class DRMNode {
    public let path: String
    let fd: Int32

    public init(path: String) throws {
        fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw CaptureError("\(path): \(V4L2.message(errno))") }
        self.path = path
        var capability: UInt64 = 0
        guard drmGetCap(fd, UInt64(DRM_CAP_DUMB_BUFFER), &capability) == 0, capability != 0 else {
            close(fd)
            throw CaptureError("\(path) cannot allocate dumb buffers")
        }
    }

    deinit { close(fd) }

    /// The first `/dev/dri/cardN` that can allocate dumb buffers.
    public static func firstWithDumbBuffers() -> String? {
        (0..<8).map { "/dev/dri/card\($0)" }.first { access($0, R_OK | W_OK) == 0 && (try? DRMNode(path: $0)) != nil }
    }
}
