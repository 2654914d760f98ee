import Foundation
import XCTest

/// The rows `kamera bench` prints for programs whose output a reader times
/// glass to glass (publishing, the virtual camera): the program's name in 42
/// columns, CPU s/min, fps read, the latency's median and maximum in ms or
/// "> 2000 (unseen)", for Kamera's rows the CPU ratio to ffmpeg, then any
/// switches of the picture the reader did not see.
enum GlassToGlassRows {
    /// Checks each program's row: CPU above 0, more than one frame read back,
    /// a latency or the count of switches unseen, and a ratio for all but
    /// ffmpeg's. Returns the rows with a latency.
    static func check(_ report: String, programs: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        var measured = 0
        for program in programs {
            let row = try XCTUnwrap(report.split(separator: "\n").first { $0.hasPrefix(program.padded(42)) }, "no row for \(program): \(report)",
                                    file: file, line: line)
            let columns = row.dropFirst(42).components(separatedBy: "  [")[0]
            let numbers = columns.split(whereSeparator: { " ()x>".contains($0) }).compactMap { Double($0) }
            XCTAssertGreaterThan(numbers.first ?? 0, 0, "CPU: \(row)", file: file, line: line)
            XCTAssertGreaterThan(numbers.dropFirst().first ?? 0, 1, "frames read back: \(row)", file: file, line: line)
            if columns.contains("(unseen)") {
                XCTAssertTrue(row.contains("switches not seen within 2 s]"), String(row), file: file, line: line)
            } else {
                XCTAssertTrue(numbers.count >= 4 && numbers[2] > 0 && numbers[2] < 10_000, "a latency glass to glass: \(row)", file: file, line: line)
                measured += 1
            }
            if !program.hasPrefix("ffmpeg") {
                XCTAssertNotNil(columns.range(of: #"[0-9.]+x"#, options: .regularExpression), "a ratio to ffmpeg: \(row)", file: file, line: line)
            }
        }
        return measured
    }
}
