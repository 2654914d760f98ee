import CV4L2
import DRM
import Foundation
import Glibc
import Pixels

/// Buffer placement: the driver's buffers mapped, exported as dma-bufs, or
/// DRM dumb buffers given to the driver; and queueing them.
extension CameraSource {
    func allocateBuffers(count: Int, bytesPerRow: Int, imageSize: Int, memory placement: CameraMemory) throws {
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        if case .drm = placement { memoryType = V4L2_MEMORY_DMABUF.rawValue }
        request.memory = memoryType
        let e = V4L2.ioctl(device.fd, KAMERA_VIDIOC_REQBUFS, &request)
        guard e == 0, request.count > 0 else {
            if memoryType == V4L2_MEMORY_DMABUF.rawValue {
                throw CaptureError("\(device.path) does not take dma-buf buffers (V4L2_MEMORY_DMABUF): \(e == 0 ? "the driver gave none" : V4L2.message(e))")
            }
            throw CaptureError("\(device.path): cannot get capture buffers: \(e == 0 ? "the driver gave none" : V4L2.message(e))")
        }
        memory = placement
        let strides = planeStrides(bytesPerRow: bytesPerRow)
        if case .drm(let node) = placement {
            let drm = try DRMNode(path: node)
            let needed = max(imageSize, strides.reduce(0) { $0 + $1.stride * $1.rows })
            for index in 0..<request.count {
                let buffer = try DumbBuffer(device: drm, size: needed)
                dumbBuffers.append(buffer)
                buffers.append(buffer.bytes)
                bufferPlanes.append(planes(in: buffer.bytes, strides: strides, fd: buffer.fd))
                try queue(index)
            }
            return
        }
        if intoSlots {
            // The consumer holds one frame and a queue may hold more: two slots
            // beyond the driver's buffers, as some drivers give as few as two.
            for _ in 0..<Int(request.count) + 2 {
                let target = FrameBuffer(format: frameFormat, width: mode.width, height: mode.height)
                decoded.append(target)
                decodedPlanes.append(target.planes)
                slotTaken.append(false)
                slotBayer.append(nil)
            }
        }
        for index in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            buffer.index = index
            guard V4L2.ioctl(device.fd, KAMERA_VIDIOC_QUERYBUF, &buffer) == 0 else {
                throw CaptureError("\(device.path): cannot query buffer \(index): \(V4L2.message(errno))")
            }
            let address = mmap(nil, Int(buffer.length), PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, off_t(buffer.m.offset))
            guard let address, address != MAP_FAILED else {
                throw CaptureError("\(device.path): cannot map buffer \(index): \(V4L2.message(errno))")
            }
            let memory = UnsafeMutableRawBufferPointer(start: address, count: Int(buffer.length))
            buffers.append(memory)
            if mode.isCompressed || mode.viaLibV4L {
                bufferPlanes.append([])
                try queue(index)
                continue
            }
            let needed = strides.reduce(0) { $0 + $1.stride * $1.rows }
            guard needed <= memory.count else {
                throw CaptureError("\(device.path): buffer of \(memory.count) bytes is too small for \(mode.width)x\(mode.height) \(mode.fourcc)")
            }
            var fd: Int32?
            if placement == .exported {
                var export = v4l2_exportbuffer()
                export.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
                export.index = index
                export.flags = UInt32(O_CLOEXEC | O_RDONLY)
                let e = V4L2.ioctl(device.fd, KAMERA_VIDIOC_EXPBUF, &export)
                guard e == 0 else { throw CaptureError("\(device.path): cannot export buffer \(index) (VIDIOC_EXPBUF): \(V4L2.message(e))") }
                exportedFDs.append(export.fd)
                fd = export.fd
            }
            bufferPlanes.append(planes(in: memory, strides: strides, fd: fd))
            try queue(index)
        }
        if intoSlots && mode.compressed == .mjpeg {
            slotJPEGs = SlotJPEGs(slots: decoded.count, capacity: buffers.map(\.count).max() ?? imageSize)
        }
    }

    /// Each plane's stride and rows in a buffer of the camera's format, the
    /// first plane's rows `bytesPerRow` apart: planes follow each other in one
    /// buffer (single-planar API), a chroma plane's stride scaled as its width
    /// is (NV12's with the luma stride, YU12's U and V with half of it).
    func planeStrides(bytesPerRow: Int) -> [(stride: Int, rows: Int)] {
        if let repacked = mode.repacked { return repacked.planeStrides(width: mode.width, height: mode.height, bytesPerRow: bytesPerRow) }
        return mode.format.planeLayouts(width: mode.width, height: mode.height).map { (max(bytesPerRow, $0.bytesPerRow), $0.rows) }
    }

    /// The planes at `strides` in `memory`, each with its place in the dma-buf `fd`.
    func planes(in memory: UnsafeMutableRawBufferPointer, strides: [(stride: Int, rows: Int)], fd: Int32?) -> [Plane] {
        var offset = 0
        var planes: [Plane] = []
        for plane in strides {
            let size = min(plane.stride * plane.rows, memory.count - offset)
            planes.append(Plane(bytes: UnsafeRawBufferPointer(rebasing: memory[offset..<offset + max(0, size)]), bytesPerRow: plane.stride,
                                dmabuf: fd.map { DMABufPlane(fd: $0, offset: offset) }))
            offset += plane.stride * plane.rows
        }
        return planes
    }

    func queue(_ index: UInt32) throws {
        var buffer = v4l2_buffer()
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = memoryType
        buffer.index = index
        if !dumbBuffers.isEmpty {
            buffer.m.fd = dumbBuffers[Int(index)].fd
            buffer.length = UInt32(dumbBuffers[Int(index)].bytes.count)
        }
        let e = V4L2.ioctl(device.fd, KAMERA_VIDIOC_QBUF, &buffer)
        guard e == 0 else { throw disconnected(e, "cannot queue a buffer") }
    }
}
