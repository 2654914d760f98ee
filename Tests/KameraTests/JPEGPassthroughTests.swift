@testable import Capture
import Foundation
import Output
import Pixels
import XCTest

/// An MJPEG camera's JPEG is kept for the server to pass through only when a
/// browser can show it as it is: it carries its own Huffman tables (many
/// webcams leave them out, and decoders then use the standard ones).
final class JPEGPassthroughTests: XCTestCase {
    /// A 16x8 JPEG from libjpeg-turbo, which writes its tables.
    static func jpeg() throws -> [UInt8] {
        let encoder = try JPEGEncoder()
        var pixels = [UInt8](repeating: 255, count: 16 * 8 * 4)
        for i in 0..<(16 * 8) {
            pixels[i * 4] = UInt8(i)
            pixels[i * 4 + 1] = UInt8(255 - i)
            pixels[i * 4 + 2] = 128
        }
        return try pixels.withUnsafeBytes { Array(try encoder.encode($0, width: 16, height: 8, metadata: nil)) }
    }

    /// `jpeg` without its DHT segments, as such webcams send.
    static func withoutTables(_ jpeg: [UInt8]) -> [UInt8] {
        var out = Array(jpeg[0..<2]), at = 2
        while at + 4 <= jpeg.count, jpeg[at + 1] != 0xDA {
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            if jpeg[at + 1] != 0xC4 { out += jpeg[at..<(at + 2 + length)] }
            at += 2 + length
        }
        return out + jpeg[at...]
    }

    /// Passable: a JPEG with its tables, cut at its end-of-image marker when
    /// the buffer holds more (a driver's buffer holding the tail of a larger,
    /// older frame, as v4l2loopback's do). Not: no tables, cut short, not a
    /// JPEG, a broken segment, no scan.
    func testOnlyWholeJPEGsWithTheirTablesPass() throws {
        let whole = try Self.jpeg(), bare = Self.withoutTables(whole)
        XCTAssertLessThan(bare.count, whole.count, "the test JPEG had DHT segments to take out")
        let cases: [(String, [UInt8], Int?)] = [
            ("a JPEG with its tables", whole, whole.count),
            ("a JPEG and the tail of an older one", whole + whole.suffix(150), whole.count),
            ("a JPEG without tables", bare, nil),
            ("cut inside its headers", Array(whole[0..<40]), nil),
            ("cut before its end", Array(whole.dropLast(2)), nil),
            ("not a JPEG", Array(repeating: 0xFF, count: 64), nil),
            ("a segment length of 0", [0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x00, 0xFF, 0xDA, 0x00, 0x02], nil),
            ("end of image before a scan", [0xFF, 0xD8, 0xFF, 0xD9, 0x00, 0x00], nil),
            ("nothing", [], nil),
        ]
        for (name, bytes, length) in cases {
            XCTAssertEqual(bytes.withUnsafeBytes { JPEGImage.passableLength($0) }, length, name)
        }
    }

    /// Each slot keeps a copy of the driver's bytes, which is what gets
    /// decoded: a writer refilling the driver's buffer afterwards changes
    /// neither the copy nor the picture. Larger than the slot: nothing kept.
    func testSlotsKeepTheDriversBytesToDecode() throws {
        let whole = try Self.jpeg()
        let slots = SlotJPEGs(slots: 2, capacity: whole.count + 200)
        var driver = whole + whole.suffix(150)
        let copy = try XCTUnwrap(driver.withUnsafeBytes { slots.keep($0, in: 1) })
        driver.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
        XCTAssertEqual([UInt8](copy), whole + whole.suffix(150), "the copy, after the driver's buffer was refilled")
        XCTAssertEqual(slots.jpeg(in: 1).map { [UInt8]($0) }, whole + whole.suffix(150))
        let decoder = try JPEGDecoder(), picture = FrameBuffer(format: .rgba, width: 16, height: 8)
        XCTAssertNil(try decoder.decode(copy, into: picture), "the copy decodes without a warning")
        XCTAssertNil(slots.jpeg(in: 0), "a slot that kept nothing has nothing")
        let small = SlotJPEGs(slots: 1, capacity: whole.count - 1)
        XCTAssertNil(whole.withUnsafeBytes { small.keep($0, in: 0) }, "larger than the slot")
        XCTAssertNil(small.jpeg(in: 0), "larger than the slot: nothing kept")
    }
}
