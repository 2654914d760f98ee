/// Which of the frontal-face cascades Debian's `opencv-data` installs the
/// face detector runs: `--detect faces=lbp` (the default) or `faces=haar`.
public enum FaceModel: String, CaseIterable, Sendable {
    /// `lbpcascade_frontalface.xml`: local binary patterns, integer
    /// comparisons; 2.7 times as fast as `haar` here and about as sensitive
    /// (the README has the counts).
    case lbp
    /// `haarcascade_frontalface_alt2.xml`: Haar features, slower, a little more sensitive.
    case haar

    /// The cascade's file.
    public var cascade: String {
        switch self {
        case .lbp: return "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml"
        case .haar: return "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml"
        }
    }

    public static let names = allCases.map(\.rawValue).joined(separator: ", ")
}
