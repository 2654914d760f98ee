import Lifecycle

/// A live run's picture outputs keep only the latest frame, replaced every
/// `seconds` (`--png-every`); nil: every frame is written.
struct UpdateInterval {
    let seconds: Double?
    private var due = 0.0

    init(_ seconds: Double?) { self.seconds = seconds }

    /// True when a frame is to be written now.
    mutating func isDue() -> Bool {
        guard let seconds else { return true }
        let now = MonotonicClock.seconds
        guard now >= due else { return false }
        due = now + seconds
        return true
    }
}
