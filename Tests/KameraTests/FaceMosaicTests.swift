import Foundation
import XCTest

/// `--filter pixellate=N@faces~F` with `--detect faces`: inside each face box
/// (less its soft edge) the picture equals the whole picture pixellated
/// (within 2 of 255), and outside the box it equals the unfiltered picture
/// exactly, on the astronaut (Tests/Media).
final class FaceMosaicTests: KameraProcessTestCase {
    func testThePixellateCoversTheFaceAndNothingElse() throws {
        let media = FaceDetectionTests.media.path
        let result = try KameraProcess.shell("""
            K='\(KameraProcess.binary.path)'
            $K render --input \(media)/astronaut.png --crop none -o plain.png && \
            $K render --input \(media)/astronaut.png --crop none --filter pixellate=12 -o whole.png && \
            $K render --input \(media)/astronaut.png --crop none --detect faces --filter pixellate=12@faces~6 --metadata faces.jsonl -o mosaic.png && \
            for f in plain whole mosaic; do ffmpeg -v error -y -i $f.png -f rawvideo -pix_fmt rgb24 $f.rgb || exit 1; done
            """, in: run.folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: run.folder.appendingPathComponent(name))) }
        let plain = try bytes("plain.rgb"), whole = try bytes("whole.rgb"), mosaic = try bytes("mosaic.rgb")
        XCTAssertEqual(mosaic.count, 512 * 512 * 3)
        let (left, top, right, bottom) = try onlyFace()
        var inside = 0, outside = 0, worstInside = 0, changedOutside = 0, changedInside = 0
        for y in 0..<512 {
            for x in 0..<512 {
                let i = (y * 512 + x) * 3
                // Pixel centers: inside the box by more than the soft edge, or outside it.
                let cx = Double(x) + 0.5, cy = Double(y) + 0.5
                let depth = min(cx - Double(left), Double(right) - cx, cy - Double(top), Double(bottom) - cy)
                if depth >= 6 {
                    inside += 1
                    for c in 0..<3 { worstInside = max(worstInside, abs(Int(mosaic[i + c]) - Int(whole[i + c]))) }
                    if (0..<3).contains(where: { mosaic[i + $0] != plain[i + $0] }) { changedInside += 1 }
                } else if depth < 0 {
                    outside += 1
                    if (0..<3).contains(where: { mosaic[i + $0] != plain[i + $0] }) { changedOutside += 1 }
                }
            }
        }
        XCTAssertGreaterThan(inside, 4000, "the face's box holds pixels")
        XCTAssertLessThanOrEqual(worstInside, 2, "inside: the pixellated picture")
        XCTAssertGreaterThan(changedInside, inside / 2, "the face is pixellated, not left as it was")
        XCTAssertEqual(changedOutside, 0, "outside the box (\(outside) pixels): the unfiltered picture exactly")
    }

    /// `blur=2@!faces`: the face's box is the unfiltered picture exactly, the
    /// rest the whole picture blurred, checked against the CPU Gaussian
    /// (within 2 of 255, as in `SpatialFilterTests`: blurred at full size).
    func testBlurOutsideTheFacesLeavesTheFaceAlone() throws {
        let media = FaceDetectionTests.media.path
        let result = try KameraProcess.shell("""
            K='\(KameraProcess.binary.path)'
            $K render --input \(media)/astronaut.png --crop none -o plain.png && \
            $K render --input \(media)/astronaut.png --crop none --detect faces --filter blur=2@!faces --metadata faces.jsonl -o background.png && \
            for f in plain background; do ffmpeg -v error -y -i $f.png -f rawvideo -pix_fmt rgba $f.rgba || exit 1; done
            """, in: run.folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        func image(_ name: String) throws -> Image {
            Image(width: 512, height: 512, pixels: Array(try Data(contentsOf: run.folder.appendingPathComponent(name))))
        }
        let plain = try image("plain.rgba"), background = try image("background.rgba")
        XCTAssertEqual(background.pixels.count, 512 * 512 * 4)
        let blurred = CPUReference.blur(plain, sigma: 2)
        let (left, top, right, bottom) = try onlyFace()
        var inside = 0, outside = 0, changedInside = 0, worstOutside = 0, blurredOutside = 0
        for y in 0..<512 {
            for x in 0..<512 {
                if x >= left && x < right && y >= top && y < bottom {
                    inside += 1
                    if background.pixel(x, y) != plain.pixel(x, y) { changedInside += 1 }
                } else {
                    outside += 1
                    let d = background.pixel(x, y) &- blurred.pixel(x, y)
                    worstOutside = max(worstOutside, abs(d.x), abs(d.y), abs(d.z))
                    if background.pixel(x, y) != plain.pixel(x, y) { blurredOutside += 1 }
                }
            }
        }
        XCTAssertGreaterThan(inside, 4000, "the face's box holds pixels")
        XCTAssertEqual(changedInside, 0, "inside the face's box: the unfiltered picture exactly")
        XCTAssertLessThanOrEqual(worstOutside, 2, "outside the box: the CPU Gaussian of deviation 2")
        XCTAssertGreaterThan(blurredOutside, outside / 2, "the background is blurred, not left as it was")
    }

    /// The one face's box in faces.jsonl: left, top, right, bottom.
    func onlyFace() throws -> (Int, Int, Int, Int) {
        let line = try String(contentsOf: run.folder.appendingPathComponent("faces.jsonl"), encoding: .utf8)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let faces = try XCTUnwrap(json["objects"] as? [[String: Any]])
        XCTAssertEqual(faces.count, 1)
        let b = try XCTUnwrap(faces.first?["bounds"] as? [String: Int])
        return (b["x"]!, b["y"]!, b["x"]! + b["width"]!, b["y"]! + b["height"]!)
    }

    func testFacesFilterNeedsFaceDetection() throws {
        let result = try KameraProcess.shell("'\(KameraProcess.binary.path)' render --filter pixellate=8@faces --detect codes", in: run.folder)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "kamera: error: @faces filters the faces found in each frame; add --detect faces\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run.folder.path), [])
    }
}
