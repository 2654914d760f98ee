import Foundation
import XCTest

/// scripts/threaded-tests.sh, the rule that chooses what ThreadSanitizer runs
/// (scripts/sanitize.sh): the tests known to run several threads are chosen,
/// those that run one are not, every name it prints is a test that exists
/// (a wrong one would make the sanitizer's filter match nothing), and a new
/// test naming a new Kamera type that starts a thread is chosen with no list
/// to update.
final class ThreadSanitizerRuleTests: XCTestCase {
    static let script = ExamplesTests.repository.appendingPathComponent("scripts/threaded-tests.sh").path

    func chosen(root: URL = ExamplesTests.repository) throws -> [String] {
        let result = try KameraProcess.shell("bash '\(Self.script)' '\(root.path)'", in: root)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.output.split(separator: "\n").map(String.init)
    }

    func testTheThreadedTestsAreChosenAndTheOthersAreNot() throws {
        let chosen = Set(try chosen())
        for test in ["StopTests", "ExitPathTests/testJoinableThreadJoinsItsTeardown", "WatchdogTests/testChecksDuringBackToBackFramesNeverSeeAStaleStart",
                     "ParallelRowsTests/testSplitConversionEqualsOneThread", "PNGOutputTests/testEncoderThreadsKeepAStreamInOrder",
                     "AnalysisTests/testOfflineRunsAnalyseEveryFrameAndLiveRunsSkipWithoutWaiting", "BayerTests/testFramesSplitBetweenThreadsMatchTheReference",
                     "RecordingTests/testStopSignalsFinishTheFile", "ShaderCommandTests/testWatchRecompilesOnSaveAndSurvivesABrokenSave",
                     "CommandLineTests/testInterruptLeavesOnlyCompletePNGs", "DeferredContextTests"] {
            XCTAssertTrue(chosen.contains(test), "\(test) runs several threads but is not chosen: \(chosen.sorted())")
        }
        for test in ["GeometryTests", "RenderPlanTests", "RepackTests", "ObjectTrackerTests", "FileWatcherTests", "ThreadSanitizerRuleTests"] {
            XCTAssertFalse(chosen.contains { $0 == test || $0.hasPrefix(test + "/") }, "\(test) runs on one thread but is chosen")
        }
        XCTAssertFalse(chosen.contains { $0.contains("VMTests") }, "the VM's tests run in the emulated VM, not under the sanitizer")
    }

    /// Each chosen name is a class of the test sources, and each method one of its tests.
    func testEveryChosenNameIsATest() throws {
        let folder = ExamplesTests.repository.appendingPathComponent("Tests/KameraTests")
        let sources = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
        let chosen = try chosen()
        XCTAssertGreaterThan(chosen.count, 10)
        for name in chosen {
            let parts = name.split(separator: "/")
            XCTAssertTrue(sources.contains("class \(parts[0]):"), "\(name): no such test class")
            if parts.count == 2 { XCTAssertTrue(sources.contains("func \(parts[1])("), "\(name): no such test") }
        }
    }

    /// A tree with a new Kamera type whose file starts a thread, and tests
    /// naming it: chosen, by class when its shared code names it, by method
    /// when only that method does; a test naming neither is not.
    func testANewThreadedTypeBringsItsTestsIn() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-rule-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for folder in ["Sources/Newly", "Tests/KameraTests"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        // Spelled in pieces, so that this test's own code names no thread.
        let start = "Thr" + "ead { }"
        try """
            public final class Mixer {
                let worker = \(start)
            }
            """.write(to: root.appendingPathComponent("Sources/Newly/Mixer.swift"), atomically: true, encoding: .utf8)
        try """
            import XCTest

            final class MixerTests: XCTestCase {
                func testMixes() throws {
                    _ = Mixer()
                }

                func testCounts() throws {
                    XCTAssertEqual(1 + 1, 2)
                }
            }

            final class SharedMixerTests: XCTestCase {
                let mixer = Mixer()

                func testUses() throws {
                    XCTAssertNotNil(mixer)
                }
            }

            final class PlainTests: XCTestCase {
                func testAdds() throws {
                    XCTAssertEqual(2 + 2, 4)
                }
            }
            """.write(to: root.appendingPathComponent("Tests/KameraTests/MixerTests.swift"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try chosen(root: root), ["MixerTests/testMixes", "SharedMixerTests"])
    }
}
