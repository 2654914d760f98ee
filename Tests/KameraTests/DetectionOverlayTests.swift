import Foundation
import Render
import XCTest

/// `--overlay boxes|labels`: the outlines are drawn where `output_bounds`
/// says, after the crop, rotation and mirror; labels above them.
final class DetectionOverlayTests: KameraProcessTestCase {
    /// The box holding every pixel of `out.rgb` (`size` square, RGB) close to `color`, and their count.
    private func pixels(near color: (Int, Int, Int), size: Int, in rows: Range<Int>? = nil) throws -> (box: PixelBox?, count: Int) {
        let rgb = Array(try Data(contentsOf: run.folder.appendingPathComponent("out.rgb")))
        var (left, top, right, bottom, count) = (Int.max, Int.max, -1, -1, 0)
        for y in rows ?? 0..<size {
            for x in 0..<size {
                let i = (y * size + x) * 3
                guard abs(Int(rgb[i]) - color.0) <= 8, abs(Int(rgb[i + 1]) - color.1) <= 8, abs(Int(rgb[i + 2]) - color.2) <= 8 else { continue }
                (left, top, right, bottom) = (min(left, x), min(top, y), max(right, x), max(bottom, y))
                count += 1
            }
        }
        return (count == 0 ? nil : PixelBox(x: left, y: top, width: right - left + 1, height: bottom - top + 1), count)
    }

    private func outputBounds(_ type: String) throws -> PixelBox {
        let line = try String(contentsOf: run.folder.appendingPathComponent("m.jsonl"), encoding: .utf8)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let object = try XCTUnwrap((json["objects"] as? [[String: Any]])?.first { $0["type"] as? String == type }, line)
        let b = try XCTUnwrap(object["output_bounds"] as? [String: Int], line)
        return PixelBox(x: b["x"]!, y: b["y"]!, width: b["width"]!, height: b["height"]!)
    }

    /// A QR code on gray, square-cropped, each way the layout turns it: the
    /// green outline (2 pixels wide, centered on the edge) spans the code's
    /// output box within 2 pixels, and nothing else is green.
    func testCodeOutlinesFollowTheGeometry() throws {
        for geometry in ["", "--rotate 90", "--mirror", "--rotate 180"] {
            let result = try KameraProcess.shell("""
                K='\(KameraProcess.binary.path)'
                qrencode -s 6 -m 0 -o code.png 'OUTLINE' && \
                ffmpeg -v error -y -f lavfi -i color=gray:s=640x480 -i code.png -filter_complex "[1]format=rgb24[c];[0][c]overlay=150:60,format=rgb24" -frames:v 1 frame.png && \
                $K render --input frame.png \(geometry) --detect codes --overlay boxes --metadata m.jsonl -o out.png && \
                ffmpeg -v error -y -i out.png -f rawvideo -pix_fmt rgb24 out.rgb
                """, in: run.folder)
            XCTAssertEqual(result.status, 0, "\(geometry): \(result.stderr)")
            let expected = try outputBounds("qr")
            // overlay.frag's green, 0.1, 1, 0.3.
            let (drawn, count) = try pixels(near: (26, 255, 77), size: 480)
            let box = try XCTUnwrap(drawn, "\(geometry): no outline")
            for (a, b, what) in [(box.x, expected.x, "left"), (box.y, expected.y, "top"),
                                 (box.x + box.width, expected.x + expected.width, "right"), (box.y + box.height, expected.y + expected.height, "bottom")] {
                XCTAssertEqual(a, b, accuracy: 2, "\(geometry): the outline's \(what) edge at \(a), the output box's at \(b)")
            }
            // Four sides 2 pixels wide: about 4 * 2 * 126 pixels, no fill.
            XCTAssertLessThan(count, 4 * 4 * expected.width, "\(geometry): an outline, not a fill")
            XCTAssertGreaterThan(count, 4 * expected.width, geometry)
        }
    }

    /// The astronaut's face in a yellow box where output_bounds says; with
    /// labels, a code's value in green above its outline.
    func testFaceBoxesAndCodeLabels() throws {
        let media = FaceDetectionTests.media.path
        let result = try KameraProcess.shell("""
            K='\(KameraProcess.binary.path)'
            qrencode -s 4 -m 2 -o code.png 'LABEL-42' && \
            ffmpeg -v error -y -f lavfi -i color=gray:s=1000x700 -i \(media)/astronaut.png -i code.png \
              -filter_complex "[2]format=rgb24[c];[0][1]overlay=150:40[t];[t][c]overlay=700:560,format=rgb24" -frames:v 1 frame.png && \
            $K render --input frame.png --detect faces,codes --overlay labels --metadata m.jsonl -o out.png && \
            ffmpeg -v error -y -i out.png -f rawvideo -pix_fmt rgb24 out.rgb
            """, in: run.folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        let face = try outputBounds("face"), code = try outputBounds("qr")
        // overlay.frag's yellow, 1, 0.85, 0.
        let yellow = try XCTUnwrap(try pixels(near: (255, 217, 0), size: 700).box, "no face box")
        XCTAssertEqual(yellow.x, face.x, accuracy: 2)
        XCTAssertEqual(yellow.y, face.y, accuracy: 2)
        XCTAssertEqual(yellow.width, face.width, accuracy: 3)
        XCTAssertEqual(yellow.height, face.height, accuracy: 3)
        // The label: green text in the rows just above the code's outline.
        let above = try pixels(near: (26, 255, 77), size: 700, in: max(0, code.y - 24)..<(code.y - 2))
        XCTAssertGreaterThan(above.count, 40, "the label's glyphs above the code")
    }

    func testOverlayNeedsDetection() throws {
        let result = try KameraProcess.shell("'\(KameraProcess.binary.path)' render --overlay labels; '\(KameraProcess.binary.path)' render --detect codes --overlay frames", in: run.folder)
        XCTAssertEqual(result.stderr, """
            kamera: error: --overlay draws what --detect finds; add --detect faces or --detect codes
            kamera: error: --overlay frames is not valid; use boxes, labels or none

            """)
    }

    /// The cube carries the boxes on its faces: drawn onto the picture before
    /// the layout, the pixels they change on the cube are the box's yellow.
    func testTheCubeCarriesTheBoxesOnItsFaces() throws {
        let media = FaceDetectionTests.media.path
        let result = try KameraProcess.shell("""
            K='\(KameraProcess.binary.path)'
            $K render --cube --input \(media)/astronaut.png --detect faces --overlay none -o plain.png && \
            $K render --cube --input \(media)/astronaut.png --detect faces --overlay boxes -o boxed.png && \
            for f in plain boxed; do ffmpeg -v error -y -i $f.png -f rawvideo -pix_fmt rgb24 $f.rgb || exit 1; done
            """, in: run.folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        let plain = Array(try Data(contentsOf: run.folder.appendingPathComponent("plain.rgb")))
        let boxed = Array(try Data(contentsOf: run.folder.appendingPathComponent("boxed.rgb")))
        XCTAssertEqual(plain.count, boxed.count)
        var changed = 0, yellow = 0
        for i in stride(from: 0, to: min(plain.count, boxed.count), by: 3) where (0..<3).contains(where: { abs(Int(plain[i + $0]) - Int(boxed[i + $0])) > 24 }) {
            changed += 1
            // Yellow, lit or shaded: red and green well above blue.
            if Int(boxed[i]) > Int(boxed[i + 2]) + 60 && Int(boxed[i + 1]) > Int(boxed[i + 2]) + 40 { yellow += 1 }
        }
        XCTAssertGreaterThan(changed, 100, "the boxes are on the cube")
        XCTAssertGreaterThan(Double(yellow), 0.8 * Double(changed), "what changed is the boxes' yellow")
    }
}
