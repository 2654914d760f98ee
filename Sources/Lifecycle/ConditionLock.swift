import Glibc

/// A mutex with a condition variable: a thread waits inside `withLock` until
/// another changes the state it guards and signals.
public final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside `withLock`: releases the lock until signalled, then takes it again.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes every waiting thread.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
