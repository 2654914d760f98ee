import ArgumentParser
import CommandLineSupport
import Foundation

/// `kamera bench ARGS` runs `kamera-bench ARGS`, the benchmark's own
/// executable beside this one. It links the malloc interposer that counts
/// allocations; the kamera binary, which users run, does not.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Throughput, latency, allocations and memory of the render chain, with peers measured in the same run.",
        discussion: "Runs kamera-bench, built beside kamera; 'kamera bench --help' lists its options.")

    @Argument(parsing: .captureForPassthrough, help: "Options for kamera-bench.")
    var arguments: [String] = []

    func run() throws {
        let here = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent()
        let bench = here.appendingPathComponent("kamera-bench").path
        guard FileManager.default.isExecutableFile(atPath: bench) else {
            // Installed without the benchmark (a package): the help still answers.
            if arguments.contains("--help") || arguments.contains("-h") {
                print(Self.helpMessage() + "\n\nkamera-bench is not installed here; build it from the repository: swift build -c release --product kamera-bench")
                return
            }
            throw UsageError("\(bench) is missing; build it beside kamera: swift build -c release --product kamera-bench")
        }
        let argv = ([bench] + arguments).map { strdup($0) } + [nil]
        execv(bench, argv)
        throw UsageError("\(bench) cannot be run: \(String(cString: strerror(errno)))")
    }
}
