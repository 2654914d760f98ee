import ArgumentParser
import Foundation
import Glibc
import Lifecycle

/// A stop asked by a signal ends the bench between measurements (and
/// `ChildProcess` within one): `check` throws `StopRequested`, which
/// `runWithOneLineErrors` does not report, ending the process by the signal.
enum BenchStop {
    static func check() throws {
        if StopSignal.isRequested { throw StopRequested() }
    }
}

/// A benchmark that could not be measured, with why.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
