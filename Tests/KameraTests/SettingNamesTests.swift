import Capture
import CommandLineSupport
import DRM
import Foundation
import Messages
import Output
import XCTest
@testable import kamera

/// Library messages name settings in the library's words; the command line
/// alone says which option each is.
final class SettingNamesTests: KameraProcessTestCase {
    func testEverySettingIsAnOptionOfSomeCommand() throws {
        XCTAssertEqual(FlagNames.unnamed.map(\.key), [], "settings no option names")
        var longs: Set<String> = []
        for command in Kamera.configuration.subcommands {
            let dump = try JSONSerialization.jsonObject(with: Data(command._dumpHelp().utf8)) as? [String: Any]
            let arguments = (dump?["command"] as? [String: Any])?["arguments"] as? [[String: Any]] ?? []
            for argument in arguments {
                for name in argument["names"] as? [[String: String]] ?? [] where name["kind"] == "long" { longs.insert("--" + name["name"]!) }
            }
        }
        for setting in Setting.all {
            let option = FlagNames.option(for: setting)
            guard option.hasPrefix("--") else { continue }
            XCTAssertTrue(longs.contains(option), "\(setting.key): \(option) is no command's option")
        }
    }

    func testTheLibrarySpeaksItsOwnWordsAndTheCommandLineItsOptions() throws {
        // In this process no front end installed option names: the library's words.
        var settings = VideoSettings()
        settings.crf = 70
        XCTAssertThrowsError(try VideoRecording(path: run.path("a.mp4"), settings: settings, live: false, rate: 30)) { error in
            XCTAssertEqual("\(error)", "the video quality 70 is out of range for h264; use 0 to 51 (lower is better)")
        }
        try run.assertFails(["render", "-o", "a.mp4", "--crf", "70"], mentioning: ["--crf 70 is out of range for h264; use 0 to 51"])
        XCTAssertThrowsError(try OutputRequest(parsing: "out.avi")) { error in
            XCTAssertTrue("\(error)".hasSuffix("pipe Y4M to an encoder: an output - the stream format y4m | ffmpeg -i - out.avi"), "\(error)")
        }
        try run.assertFails(["render", "-o", "out.avi"], mentioning: ["pipe Y4M to an encoder: -o - --stream y4m | ffmpeg -i - out.avi"])
    }

    /// A library error carries its facts: the setting, the value given, what
    /// is wrong and what would work; its line is made of them.
    func testLibraryErrorsCarryTheirFacts() throws {
        var jpeg = JPEGSettings()
        jpeg.quality = 120
        XCTAssertThrowsError(try jpeg.check()) { error in
            guard let error = error as? OutputError else { return XCTFail("\(type(of: error)): \(error)") }
            XCTAssertEqual(error.facts.setting, .quality)
            XCTAssertEqual(error.facts.value, "120")
            XCTAssertEqual(error.facts.problem, "is out of range")
            XCTAssertEqual(error.facts.remedy, "use 1 to 100 (default 92)")
            XCTAssertEqual("\(error)", "the JPEG quality 120 is out of range; use 1 to 100 (default 92)")
        }
        let statement = DRMError(.connector, "HDMI-A-9", because: "nothing is connected to it", "connected ones: Virtual-1")
        XCTAssertEqual("\(statement)", "connector HDMI-A-9: nothing is connected to it; connected ones: Virtual-1")
        let plain = CaptureError("no camera found")
        XCTAssertNil(plain.facts.setting)
        XCTAssertEqual("\(plain)", "no camera found")
    }

    /// No library source writes an option's name into a string: they name settings.
    func testNoLibraryStringNamesAnOption() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources")
        let frontEnds: Set<String> = ["kamera", "kamera-bench", "CommandLineSupport", "Messages"]
        // Swift has no `--` operator: outside comments, `--name` is in a string.
        let option = try NSRegularExpression(pattern: #"(?<![\w-])--[a-z][a-z-]+"#)
        var found: [String] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path) where !frontEnds.contains(module) {
            guard let files = FileManager.default.enumerator(atPath: sources.appendingPathComponent(module).path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: sources.appendingPathComponent(module).appendingPathComponent(file), encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    if code.hasPrefix("//") || code.contains("help:") { continue }
                    let s = String(line)
                    if option.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil { found.append("\(module)/\(file):\(n + 1)") }
                }
            }
        }
        XCTAssertEqual(found, [], "library strings that name options; name a Setting instead")
    }
}
