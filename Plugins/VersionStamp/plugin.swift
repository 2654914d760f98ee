import Foundation
import PackagePlugin

/// Writes `KameraVersion.swift` before each build of the target that uses it:
/// the `VERSION` file's number, and where the package is a git clone, the
/// commit it was built from (`0.1.0+g0ff9843`, `+dirty` with local changes).
/// The file is rewritten only when the text changes, so a build with nothing
/// new compiles nothing again.
@main
struct VersionStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL.path
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let script = """
            set -e
            out="$1/KameraVersion.swift"; root="$2"
            mkdir -p "$1"
            version=$(cat "$root/VERSION" 2>/dev/null || echo 0.0.0)
            if commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
              version="$version+g$commit"
              git -C "$root" diff --quiet HEAD -- 2>/dev/null || version="$version.dirty"
            fi
            text="/// The version this binary was built as (the VERSION file, and the commit when built from a clone).
            public let kameraVersion = \\"$version\\""
            [ -f "$out" ] && [ "$(cat "$out")" = "$text" ] || printf '%s\\n' "$text" > "$out"
            """
        return [.prebuildCommand(
            displayName: "Stamping Kamera's version",
            executable: URL(filePath: "/bin/sh"),
            arguments: ["-c", script, "sh", output.path, root],
            outputFilesDirectory: output)]
    }
}
