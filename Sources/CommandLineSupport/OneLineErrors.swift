import ArgumentParser
import Foundation
import Glibc
import Lifecycle
import Output

extension ParsableCommand {
    /// The `main` of Kamera's executables: signal handlers first, before any
    /// work; errors as one line (`kamera: error: …`) and exit status 1, a
    /// command line that does not parse pointing at `helpHint()`; a stop asked
    /// by a signal ends by that signal. Every thread the commands start is
    /// joined before `run()` returns.
    /// `earlySignal`: a stop signal the executable caught before main, or 0.
    public static func runWithOneLineErrors(helpHint: () -> String, earlySignal: Int32 = 0) -> Never {
        StopSignal.install(alreadyReceived: earlySignal)
        FlagNames.install()
        var status: Int32 = 0
        do {
            var command = try parseAsRoot(ConfigFile.expand(Array(CommandLine.arguments.dropFirst()), root: self))
            try command.run()
        } catch {
            let code = exitCode(for: error)
            switch code {
            case .success:
                print(HelpExamples.keepingExamplesWhole(narrow: fullMessage(for: error), wide: fullMessage(for: error, columns: 100_000)))
            case .validationFailure:
                let text = message(for: error)
                let arguments = Array(CommandLine.arguments.dropFirst())
                let commands = configuration.subcommands.compactMap { $0.configuration.commandName }
                // A mistyped command or options before it, then a habit from another tool, is answered
                // with what Kamera takes; other errors as they are.
                if let answer = MisplacedWords.answer(for: arguments, commands: commands) {
                    reportError(CommandLineError(answer, help: helpHint()))
                } else if text.hasPrefix("Unknown option"), let answer = Habits.answer(for: arguments) {
                    reportError(CommandLineError(answer, help: helpHint()))
                } else {
                    reportError(CommandLineError(text, help: helpHint()))
                }
                status = 1
            default:
                // A stop is no error: the process ends by its signal below.
                if !(error is ExitCode) && !(error is StopRequested && StopSignal.isRequested) { reportError(error) }
                status = error is ExitCode ? code.rawValue : 1
            }
        }
        if StopSignal.isRequested { StopSignal.endProcessBySignal() }
        Glibc.exit(status)
    }
}

/// `kamera: error: MESSAGE` on stderr, on one line whatever bytes it holds
/// (the settings it names said as options: `FlagNames`).
public func reportError(_ error: Any) {
    FileHandle.standardError.write(Data("kamera: error: \(TerminalText.oneLine(String(describing: error)))\n".utf8))
}
