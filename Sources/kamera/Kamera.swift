import ArgumentParser
import Foundation
import Lifecycle
import Output

@main
struct Kamera: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kamera",
        abstract: "Camera preview renderer: frames → texture cache → color-matrix filters → preview or cube → PNG or a live preview.",
        discussion: """
        Exit status: 0 when the job is done (or q, --duration, --frames ended it); 1 on any error,
        with one line on stderr that names the problem and what would work. Ctrl-C (SIGINT) or
        SIGTERM: the frame in hand is finished, nothing is left half-written, the terminal and the
        devices are released, and Kamera then ends by that signal (status 130 or 143 in a shell;
        a clean stop for systemd). A second Ctrl-C ends it at once.
        """,
        subcommands: [RenderCommand.self, PreviewCommand.self, CubeCommand.self, DevicesCommand.self, DisplaysCommand.self, ControlsCommand.self, BenchCommand.self],
        defaultSubcommand: RenderCommand.self)

    /// Signal handlers first, before any work; errors as one line and exit
    /// status 1; a stop asked by a signal ends by that signal. Every thread the
    /// commands start is joined before `run()` returns.
    static func main() {
        StopSignal.install()
        var status: Int32 = 0
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            switch code {
            case .success:
                print(fullMessage(for: error))
            case .validationFailure:
                report(CommandLineError(message(for: error), help: helpHint()))
                status = 1
            default:
                let text = String(describing: error)
                if !(error is ExitCode) { report(text) }
                status = error is ExitCode ? code.rawValue : 1
            }
        }
        if StopSignal.isRequested { StopSignal.endProcessBySignal() }
        Glibc.exit(status)
    }

    private static func report(_ error: CustomStringConvertible) {
        FileHandle.standardError.write(Data("kamera: error: \(TerminalText.oneLine(error.description))\n".utf8))
    }

    /// `kamera SUBCOMMAND --help` for the subcommand on the command line.
    private static func helpHint() -> String {
        let names = configuration.subcommands.compactMap { $0.configuration.commandName }
        let name = CommandLine.arguments.dropFirst().first { names.contains($0) } ?? "render"
        return "kamera \(name) --help"
    }
}

/// A command line that does not parse: ArgumentParser's message on one line,
/// with where to read the options.
struct CommandLineError: Error, CustomStringConvertible {
    var message: String
    var help: String
    init(_ message: String, help: String) {
        self.message = message
        self.help = help
    }
    var description: String {
        let text = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("Usage:") && !$0.hasPrefix("See '") }
            .map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }.joined(separator: "; ")
        return "\(text.isEmpty ? "the command line is not valid" : text); see '\(help)'"
    }
}
