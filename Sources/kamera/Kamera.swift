import ArgumentParser
import Foundation
import CommandLineSupport
import BuildInfo
import CEarlyStop

@main
struct Kamera: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kamera",
        abstract: "Camera preview renderer: frames → frame uploader → filters → preview or cube → PNG, JPEG, Y4M, MP4/MKV/WebM recordings, the console display or a live preview.",
        discussion: """
        Exit status: 0 when the job is done (or q, --duration, --frames ended it); 1 on any error,
        with one line on stderr that names the problem and what would work. Ctrl-C (SIGINT) or
        SIGTERM: the frame in hand is finished, nothing is left half-written, the terminal and the
        devices are released, and Kamera then ends by that signal (status 130 or 143 in a shell;
        a clean stop for systemd). A second Ctrl-C ends it at once.
        """,
        version: kameraVersion,
        subcommands: [RenderCommand.self, PreviewCommand.self, CubeCommand.self, ShaderCommand.self, DevicesCommand.self, DisplaysCommand.self, ControlsCommand.self, SnapCommand.self, CodecsCommand.self, BenchCommand.self, VersionCommand.self, CompileCheckCommand.self],
        defaultSubcommand: RenderCommand.self)

    static func main() { runWithOneLineErrors(helpHint: helpHint, earlySignal: kamera_early_signal()) }

    /// `kamera SUBCOMMAND --help` for the subcommand on the command line.
    private static func helpHint() -> String {
        let names = configuration.subcommands.compactMap { $0.configuration.commandName }
        let name = CommandLine.arguments.dropFirst().first { names.contains($0) } ?? "render"
        return "kamera \(name) --help"
    }
}
