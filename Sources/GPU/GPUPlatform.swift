/// Which EGL platform to render on.
public enum GPUPlatform: Equatable, Sendable, CustomStringConvertible {
    /// GBM on a DRM render node when there is one, else the EGL device platform, else surfaceless.
    case auto
    /// Mesa's surfaceless platform (`EGL_MESA_platform_surfaceless`).
    case surfaceless
    /// The EGL device platform (`EGL_EXT_platform_device`), first device.
    case device
    /// GBM on the given DRM node, e.g. `/dev/dri/renderD128`.
    case gbm(String)

    /// Parses `auto`, `surfaceless`, `device`, `gbm` or `gbm:/dev/dri/renderD128`.
    public init?(argument: String) {
        switch argument {
        case "auto": self = .auto
        case "surfaceless": self = .surfaceless
        case "device": self = .device
        case "gbm": self = .gbm("/dev/dri/renderD128")
        default:
            guard argument.hasPrefix("gbm:"), argument.count > 4 else { return nil }
            self = .gbm(String(argument.dropFirst(4)))
        }
    }

    public static let validNames = "auto, surfaceless, device, gbm, gbm:/dev/dri/renderDN"

    public var description: String {
        switch self {
        case .auto: "auto"
        case .surfaceless: "surfaceless"
        case .device: "device"
        case .gbm(let node): "gbm:\(node)"
        }
    }
}

/// Which OpenGL ES version to ask for.
public enum GLESVersion: String, CaseIterable, Sendable {
    /// GLES 3 when offered, GLES 2 otherwise.
    case auto
    case gles2 = "2"
    case gles3 = "3"
}
