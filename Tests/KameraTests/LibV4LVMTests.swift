import Foundation
import XCTest

/// The libv4l fallback, against vivid in the VM: the formats Kamera does not
/// read itself but libv4lconvert converts (vivid offers HSV3, HSV4, RGB4 and
/// Y16 big-endian) render the picture vivid gives in a format Kamera reads,
/// from the same still pattern: HSV within 8 of 255 (HSV's 8-bit hue rounds;
/// 6 was seen) and 95 % of the samples within 1 (96.9 % seen); RGB4 and Y16-BE within 1.
/// `devices --formats` and `-v` say which frames take libv4l's path. The VM
/// must boot; if it cannot, the test fails.
final class LibV4LVMTests: XCTestCase {
    static let script = """
    set -u
    K="$KAMERA"
    D=/dev/video0
    v4l2-ctl -d $D --set-ctrl osd_text_mode=2 --set-parm=30
    for f in HSV3 HSV4 RGB4 RGB3 Y16 Y16-BE; do
      $K render -v --camera $D --format "$f" --input-size 320x180 --crop none --frames 2 -o "v-$f-%d.png" 2> "v-$f.log"
    done
    $K devices --formats $D > formats.txt
    $K render --camera $D --format ABCD -o x.png 2> unknown.log; echo $? > unknown.rc
    """

    static let steps = [VMStep("libv4l", owner: "\(LibV4LVMTests.self)", script: script)]

    func testFormatsOnlyLibV4LConvertsRenderTheRightPicture() throws {
        let run = VMBoot.cameras.run("libv4l")
        defer { run.remove() }
        let (text, image) = (run.text, run.image)
        let formats = try text("formats.txt")
        for code in ["HSV3", "HSV4", "RGB4", "Y16 -BE"] {
            XCTAssertTrue(formats.contains("\(code)  ") && formats.contains("converted to rgb24 by libv4l on the CPU"), formats)
        }
        for code in ["HSV3", "HSV4", "RGB4", "Y16-BE"] {
            let log = try text("v-\(code).log")
            XCTAssertTrue(log.contains("converted to rgb24 by libv4l"), log)
        }
        let rgb = try image("v-RGB3-1.png"), gray = try image("v-Y16-1.png")
        for (code, reference, tolerance) in [("HSV3", rgb, 8), ("HSV4", rgb, 8), ("RGB4", rgb, 1), ("Y16-BE", gray, 1)] {
            let got = try image("v-\(code)-1.png")
            XCTAssertClose(got, reference, tolerance: tolerance, code)
            let close = zip(got.pixels, reference.pixels).filter { abs(Int($0) - Int($1)) <= 1 }.count
            XCTAssertGreaterThanOrEqual(Double(close) / Double(got.pixels.count), 0.95, "\(code): samples within 1")
        }
        XCTAssertEqual(try text("unknown.rc").trimmingCharacters(in: .whitespacesAndNewlines), "1")
        let unknown = try text("unknown.log")
        XCTAssertTrue(unknown.contains("offers no ABCD that libv4l converts") && unknown.contains("HSV3"), unknown)
    }
}
