import CLinux
import Glibc

/// A POSIX thread that is always joined: `join()` returns only once the
/// thread has exited, its thread-specific data (the GL driver's, the Swift
/// runtime's) destroyed. A process must not exit while such teardown still
/// runs on another thread: the C libraries' exit handlers free the same state.
public final class JoinableThread: @unchecked Sendable {
    private var thread: pthread_t
    private var joined = false
    private let lock = Lock()

    /// Starts `body` on a new thread named `name` (at most 15 bytes show in `ps`).
    public init(name: String, stackSize: Int = 8 << 20, _ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, stackSize)
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { box in
            let start = Unmanaged<Start>.fromOpaque(box!).takeRetainedValue()
            _ = kamera_set_thread_name(String(decoding: start.name.utf8.prefix(15), as: UTF8.self))
            start.body()
            return nil
        }, box)
        pthread_attr_destroy(&attributes)
        precondition(status == 0, "pthread_create failed: \(String(cString: strerror(status)))")
        self.thread = thread
    }

    deinit { join() }

    /// True on this thread itself.
    public var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

    /// Waits until the thread has exited; later calls return at once. Called
    /// on the thread itself it detaches it instead (it cannot wait for itself).
    public func join() {
        lock.withLock {
            guard !joined else { return }
            joined = true
            if isCurrent {
                pthread_detach(thread)
            } else {
                pthread_join(thread, nil)
            }
        }
    }

    private final class Start {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
