import Lifecycle

/// At most `fps` frames a second pass (`--serve-fps`), evenly: a frame
/// passes when it comes within a quarter period of its due time, so a
/// 30 fps source capped at 15 gives every other frame, not every third.
struct RateGate {
    let period: Double?
    private var next = 0.0

    init(fps: Double?) { period = fps.map { 1 / $0 } }

    mutating func isDue(now: Double = MonotonicClock.seconds) -> Bool {
        guard let period else { return true }
        let slack = period / 4
        guard now >= next - slack else { return false }
        next = max(next + period, now - slack)
        return true
    }
}
