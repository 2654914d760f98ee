/// Which decoder a compressed camera's frames go through (`--decoder`).
public enum DecoderChoice: Equatable, Sendable {
    /// A V4L2 hardware decoder when the machine has one for the format, else the CPU.
    case auto
    /// The CPU only: libjpeg-turbo, libavcodec.
    case cpu
    /// A V4L2 memory-to-memory decoder: the one at this path, or nil for the first that takes the format.
    case v4l2(String?)

    /// Parses `auto`, `cpu`, `v4l2` or a device path such as `/dev/video2`.
    public init?(name: String) {
        switch name {
        case "auto": self = .auto
        case "cpu": self = .cpu
        case "v4l2": self = .v4l2(nil)
        default:
            guard name.hasPrefix("/dev/") else { return nil }
            self = .v4l2(name)
        }
    }

    public static let validNames = "auto, cpu, v4l2 or a decoder's /dev/videoN"
}
