import Foundation

extension CameraSource {
    /// The camera's own zoom control (`zoom_absolute`), when it has one.
    public var hardwareZoom: CameraControl? {
        device.controls().first { $0.name == "zoom_absolute" && !$0.readOnly }
    }

    /// Sets the hardware zoom for `factor` in `range`: factor 1 is the control's
    /// minimum, the range's maximum factor its maximum, linear in between.
    public func setHardwareZoom(_ factor: Double, range: ZoomRange, control: CameraControl) throws {
        let fraction = range.maxFactor > 1 ? (range.clamp(factor) - 1) / (range.maxFactor - 1) : 0
        var value = control.minimum + Int64((Double(control.maximum - control.minimum) * fraction).rounded())
        if control.step > 1 { value = control.minimum + (value - control.minimum) / control.step * control.step }
        try device.setControl(control, to: value)
    }
}
