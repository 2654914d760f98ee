/// Which of the frontal-face cascades Debian's `opencv-data` installs the
/// face detector runs: `--detect faces=haar` (the default) or `faces=lbp`.
public enum FaceModel: String, CaseIterable, Sendable {
    /// `haarcascade_frontalface_alt2.xml`: Haar features in a 20-pixel
    /// window. The default: it finds small and mirrored faces the LBP
    /// cascade misses (62 of 72 faces of 27 pixels, where LBP found none;
    /// the README has the counts).
    case haar
    /// `lbpcascade_frontalface.xml`: local binary patterns, integer
    /// comparisons in a 24-pixel window; 2.7 times as fast, about as
    /// sensitive to faces of 70 pixels and more, blind to smaller ones.
    case lbp

    /// The cascade's file.
    public var cascade: String {
        switch self {
        case .lbp: return "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml"
        case .haar: return "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml"
        }
    }

    public static let names = allCases.map(\.rawValue).joined(separator: ", ")
}
