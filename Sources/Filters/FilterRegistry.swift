import Messages

/// Every filter users can name. A new filter adds its kinds here, one line.
public enum FilterRegistry {
    public static let kinds: [FilterKind] =
        ColorMatrixFilter.kinds
        + [PixellateFilter.kind]
        + [BlurFilter.kind]
        + [SharpenFilter.kind]
        + [ConvolutionFilter.kind]

    public static func kind(named name: String) -> FilterKind? { kinds.first { $0.name == name } }

    /// Every name a user can type, for error messages.
    public static var validNames: String {
        (kinds.map(\.usage) + ["FILE.frag"]).joined(separator: ", ")
    }

    /// One line per filter, for `--list-filters`.
    public static var listing: String {
        var lines = kinds.map { pad($0.usage) + $0.summary }
        lines.append(pad("FILE.frag") + "a custom GLSL ES fragment shader (see Shaders/README.md)")
        lines.append(pad("F@x,y,w,h~E") + "any filter F limited to a rectangle of the cropped frame: pixels (120) or percent (25%), with an optional soft edge E pixels wide")
        lines.append(pad("F@faces~E") + "any filter F limited to the faces \(Setting.detect) faces finds in each frame (pixellate=16@faces: a face mosaic), their boxes steadied over frames")
        lines.append(pad("F@!faces~E") + "any filter F everywhere but the faces, or but a rectangle (F@!x,y,w,h): blur=8@!faces blurs the background")
        return lines.joined(separator: "\n")
    }

    private static func pad(_ s: String) -> String {
        s.count >= 16 ? s + " " : s + String(repeating: " ", count: 16 - s.count)
    }
}
