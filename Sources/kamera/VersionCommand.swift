import ArgumentParser
import BuildInfo

/// `kamera version`: the same line as `kamera --version`.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print Kamera's version (the same as --version).",
        version: kameraVersion)

    func run() {
        print(kameraVersion)
    }
}
