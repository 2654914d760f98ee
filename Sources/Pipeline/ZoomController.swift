import Render
import Capture
import Foundation
import Lifecycle

/// Zoom for a running stream: the camera's hardware zoom when it has one,
/// otherwise digital zoom by center crop in the frame uploader. Ramps move at a
/// rate (1 doubles the factor per second) and are applied frame by frame with
/// `apply(to:)`, on the render thread.
public final class ZoomController {
    public private(set) var ramp: ZoomRamp
    private var camera: LiveCamera?
    private var hardware: CameraControl?
    private let clock: () -> Double
    private var applied: Double = 0
    /// Called with the new factor whenever it changes, as a camera app's zoom delegate is.
    public var onChange: ((Double) -> Void)?

    /// `clock` gives seconds; the default is the monotonic clock.
    public init(source: FrameSource?, clock: @escaping () -> Double = { MonotonicClock.seconds }) {
        ramp = ZoomRamp(range: ZoomRange())
        self.clock = clock
        attach(to: source)
    }

    /// Follows a new source (after switching camera), keeping the factor; the
    /// next `apply(to:)` sets it there.
    public func attach(to source: FrameSource?) {
        camera = source?.camera
        hardware = camera?.hardwareZoom
        applied = 0
    }

    /// True when zoom goes to the camera's `zoom_absolute` control.
    public var usesHardware: Bool { hardware != nil }

    public var currentFactor: Double { ramp.factor(at: clock()) }

    /// Jumps to slider value `v` (0...1 → 1...maxZoom).
    public func setSlider(_ v: Double) {
        ramp.set(ramp.range.factor(slider: v), now: clock())
    }

    public func rampZoom(to factor: Double, rate: Double) {
        ramp.ramp(to: factor, rate: rate, now: clock())
    }

    public func cancelZoomRamp() {
        ramp.cancel(now: clock())
    }

    /// Applies the current factor to the camera or to the renderer's frame uploader.
    public func apply(to renderer: FrameRenderer) throws {
        let factor = currentFactor
        guard factor != applied else { return }
        if let camera, let hardware {
            try camera.setHardwareZoom(factor, range: ramp.range, control: hardware)
            renderer.uploader.zoom = 1
        } else {
            renderer.uploader.zoom = Float(factor)
        }
        applied = factor
        onChange?(factor)
    }
}
