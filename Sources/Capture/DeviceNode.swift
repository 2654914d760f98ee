import Glibc
import Messages

/// Opening a V4L2 device node (a camera, a virtual camera's output), with one
/// line for each way it can fail.
enum DeviceNode {
    /// `path` opened read-write and non-blocking; `missing` and `notANode`
    /// end the messages when nothing is there or it is a file, and a node the
    /// user may not open names the video group.
    static func open(_ path: String, missing: String, notANode: String) throws -> Int32 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CaptureError("\(path): no such device; \(missing)")
        }
        guard (info.st_mode & S_IFMT) == S_IFCHR else {
            throw CaptureError("\(path): not a device node; \(notANode)")
        }
        let fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw CaptureError("\(path): cannot open: \(V4L2.message(e))" + (e == EACCES ? "; add yourself to the video group (sudo adduser $USER video, then log in again)" : ""))
        }
        return fd
    }
}
