import CDRM

/// A video mode a connector offers.
public struct DisplayMode: CustomStringConvertible, Sendable {
    public let width: Int
    public let height: Int
    /// Refresh rate in Hz, from the pixel clock and the totals.
    public let refresh: Double
    public let preferred: Bool
    public let info: drmModeModeInfo

    init(_ info: drmModeModeInfo) {
        self.info = info
        width = Int(info.hdisplay)
        height = Int(info.vdisplay)
        let total = Double(info.htotal) * Double(info.vtotal)
        refresh = total > 0 ? Double(info.clock) * 1000 / total : Double(info.vrefresh)
        preferred = info.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0
    }

    /// "1024x768@60"
    public var description: String { "\(width)x\(height)@\(Int(refresh.rounded()))" }

    /// True for `WxH` or `WxH@Hz` (the rate within half a hertz).
    public func matches(width: Int, height: Int, refresh: Double?) -> Bool {
        guard self.width == width, self.height == height else { return false }
        return refresh.map { abs(self.refresh - $0) < 0.5 } ?? true
    }
}
