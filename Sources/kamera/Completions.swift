import ArgumentParser
import Filters
import Pixels

/// What the shell completions offer for an option's value: the known values
/// where there is a list, files where a file is taken (ArgumentParser's
/// default offers nothing at all, not even files).
enum Completions {
    /// The filter names, then shaders (`.frag`, `.glsl`) and folders.
    static let filter = CompletionKind.shellCommand(
        "printf '%s\\n' \(FilterRegistry.kinds.map(\.name).joined(separator: " ")); compgen -o plusdirs -f -X '!*.@(frag|glsl)' -- \"$cur\"")
    /// The cameras there are, and auto.
    static let camera = CompletionKind.shellCommand("compgen -G '/dev/video*'; echo auto")
    /// The DRM cards there are.
    static let card = CompletionKind.shellCommand("compgen -G '/dev/dri/card*'")
    static let format = CompletionKind.list(["auto"] + PixelFormat.named.map(\.rawValue) + RepackedFormat.allCases.map(\.rawValue) + ["mjpeg", "h264", "hevc", "fwht"])
    static let shader = CompletionKind.file(extensions: ["frag", "glsl"])
    static let png = CompletionKind.file(extensions: ["png"])
    static let json = CompletionKind.file(extensions: ["json"])
    static let anyFile = CompletionKind.file()
}
