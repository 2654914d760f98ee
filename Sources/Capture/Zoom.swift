import Foundation

/// Zoom as camera apps offer it: a slider value v in 0...1 maps to the
/// factor maxZoom^v (even steps in perceived size), with maxZoom = min(the
/// device's maximum, 4).
public struct ZoomRange: Equatable, Sendable {
    public static let cap = 4.0
    /// The largest factor offered, at most 4.
    public let maxFactor: Double

    public init(deviceMaximum: Double = ZoomRange.cap) {
        maxFactor = max(1, min(deviceMaximum, Self.cap))
    }

    /// The factor for slider value `v` (clamped to 0...1).
    public func factor(slider v: Double) -> Double {
        pow(maxFactor, min(1, max(0, v)))
    }

    /// The slider value showing `factor`.
    public func slider(factor: Double) -> Double {
        maxFactor > 1 ? log(min(maxFactor, max(1, factor))) / log(maxFactor) : 0
    }

    public func clamp(_ factor: Double) -> Double { min(maxFactor, max(1, factor)) }
}

/// A zoom that moves smoothly toward a target, as `rampToVideoZoomFactor:withRate:`:
/// rate 1 doubles (or halves) the factor every second. Time comes from the
/// caller (`now`, in seconds), so a ramp is exact and testable; `factor(at:)`
/// gives the current value to apply to each frame.
public struct ZoomRamp: Equatable, Sendable {
    public let range: ZoomRange
    private var start: Double
    private var startTime: Double
    private var target: Double
    private var rate: Double

    public init(range: ZoomRange = ZoomRange(), factor: Double = 1) {
        self.range = range
        start = range.clamp(factor)
        target = start
        startTime = 0
        rate = 0
    }

    /// Sets the factor at once, ending any ramp.
    public mutating func set(_ factor: Double, now: Double) {
        start = range.clamp(factor)
        target = start
        startTime = now
        rate = 0
    }

    /// Starts moving toward `factor` at `rate` (doublings per second) from the value at `now`.
    public mutating func ramp(to factor: Double, rate: Double, now: Double) {
        start = self.factor(at: now)
        startTime = now
        target = range.clamp(factor)
        self.rate = max(0, rate)
    }

    /// Stops where the zoom is at `now`.
    public mutating func cancel(now: Double) {
        set(factor(at: now), now: now)
    }

    /// True while the factor is still moving at `now`.
    public func isRamping(at now: Double) -> Bool { factor(at: now) != target }

    /// The factor at time `now`.
    public func factor(at now: Double) -> Double {
        guard rate > 0, start != target else { return target }
        let steps = rate * max(0, now - startTime)
        let value = target > start ? start * pow(2, steps) : start / pow(2, steps)
        return target > start ? min(value, target) : max(value, target)
    }

    /// Seconds a ramp from `from` to `to` at `rate` takes.
    public static func duration(from: Double, to: Double, rate: Double) -> Double {
        abs(log2(to / from)) / rate
    }
}
