import Glibc

/// Seconds on the monotonic clock, and the CPU time this process has used.
public enum MonotonicClock {
    public static var seconds: Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Nanoseconds on the monotonic clock, as an integer (atomics hold it).
    public static var nanoseconds: Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }

    /// User and system CPU seconds of the whole process, all threads.
    public static var processCPUSeconds: Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
