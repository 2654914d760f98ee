import Foundation

/// Where the examples that `--help` names are: `Examples` in the source tree
/// (or wherever a folder of that name is in the current one), else the copy
/// an install put beside the binary (PREFIX/share/doc/kamera/examples), so
/// the examples run as written in either.
enum ExamplesFolder {
    static let path: String = {
        let files = FileManager.default
        if files.fileExists(atPath: "Examples") { return "Examples" }
        guard let binary = try? files.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return "Examples" }
        let installed = URL(fileURLWithPath: binary).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/doc/kamera/examples").path
        return files.fileExists(atPath: installed) ? installed : "Examples"
    }()
}
