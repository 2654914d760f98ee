import Capture
import Foundation
import Pixels
import XCTest

/// The page at `/` in a real browser: Debian's Chromium, headless, on a
/// still input served with `--serve`.
final class ServePageTests: KameraProcessTestCase {
    static let window = (width: 700, height: 800)

    /// A screenshot of `path` on the server, after `seconds` of the page's own time.
    func screenshot(_ url: String, to name: String, seconds: Int) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            XCTFail("Chromium is not installed: scripts/install-deps.sh --tests installs it")
            return
        }
        let result = try KameraProcess.shell("""
            HOME="$PWD" timeout 120 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
                --user-data-dir="$PWD/chromium" --virtual-time-budget=\(seconds * 1000) --window-size=\(Self.window.width),\(Self.window.height) \
                --screenshot="$PWD/\(name)" '\(url)'
            """, in: run.folder)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    /// The picture's place in the screenshot: at its own size (the window is larger), centred, 8 pixels from the top.
    func picture(in name: String, width: Int, height: Int) throws -> Frame {
        let shot = try XCTUnwrap(try ImageSource(path: run.path(name)).nextFrame())
        XCTAssertEqual(shot.width, Self.window.width)
        let (x0, y0) = ((shot.width - width) / 2, 8)
        let stride = shot.format == .rgba ? 4 : 3
        let buffer = FrameBuffer(format: .rgba, width: width, height: height)
        let target = buffer.planes[0]
        let bytes = UnsafeMutableRawBufferPointer(mutating: target.bytes)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    bytes[y * target.bytesPerRow + x * 4 + c] = shot.planes[0].bytes[(y0 + y) * shot.planes[0].bytesPerRow + (x0 + x) * stride + c]
                }
                bytes[y * target.bytesPerRow + x * 4 + 3] = 255
            }
        }
        return buffer.frame(sequence: 0, timestamp: 0)
    }

    /// The page shows the live picture (compared per pixel with the PNG render:
    /// mean difference at most 3 levels, 99.9% within 32, JPEG's loss and the
    /// browser's decoding); choosing a filter on the page (`/?filter=gray`
    /// goes through the list's own code) changes the frames that follow; the
    /// snapshot link on the page gives a JPEG; the page lists the analysers' latest record.
    func testThePageShowsTheLivePictureAndSwitchesFilters() throws {
        let astronaut = FaceDetectionTests.media.appendingPathComponent("astronaut.png").path
        for filter in ["sepia", "gray"] {
            let made = try run.run(["snap", "-i", astronaut, "--filter", filter, "-o", "\(filter).png"])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        let served = try ServedKamera(run, ["preview", "-i", astronaut, "--filter", "sepia", "--analyze", "luma", "--metadata", "luma.jsonl", "--serve", "0", "--duration", "300"])
        try screenshot(served.url + "/", to: "page.png", seconds: 2)
        // The page's own code switches the filter; the frames that follow are gray. The switch is
        // asynchronous to the screenshot, so the picture is taken by a second load once the server said so.
        try screenshot(served.url + "/?filter=gray", to: "switching.png", seconds: 2)
        XCTAssertNotNil(served.wait(for: "filter: gray", seconds: 10), served.stderr)
        try screenshot(served.url + "/", to: "gray-page.png", seconds: 2)
        for (shot, reference, other) in [("page.png", "sepia.png", "gray.png"), ("gray-page.png", "gray.png", "sepia.png")] {
            let shown = try picture(in: shot, width: 512, height: 512)
            let expected = try XCTUnwrap(try ImageSource(path: run.path(reference)).nextFrame())
            let (mean, p999) = try ServeTests.difference(shown, expected)
            XCTAssertLessThanOrEqual(mean, 3.0, "\(shot) against \(reference): mean difference")
            XCTAssertLessThanOrEqual(p999, 32, "\(shot) against \(reference): 99.9th percentile")
            let (otherMean, _) = try ServeTests.difference(shown, try XCTUnwrap(try ImageSource(path: run.path(other)).nextFrame()))
            XCTAssertGreaterThan(otherMean, 6, "\(shot) is not \(other)")
        }
        // The page's own buttons, clicked by its code for /?snapshot&record: the snapshot link downloads a JPEG
        // (headless Chromium saves it in $HOME/Downloads) and the record button starts a recording, which the
        // page, loaded again, names on the button that stops it.
        let dom = try KameraProcess.shell("""
            HOME="$PWD" timeout 120 chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$PWD/chromium" --virtual-time-budget=3000 --dump-dom '\(served.url)/?snapshot&record' > /dev/null
            file -b Downloads/kamera.jpg
            HOME="$PWD" timeout 120 chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$PWD/chromium" --virtual-time-budget=2000 --dump-dom '\(served.url)/' \
              | grep -o -e '<a id="snapshot" href="[^"]*" download="[^"]*"' -e '<pre id="results">frame [0-9]*: luma {"mean":[0-9.]*' -e '<button id="record" type="button">[^<]*'
            """, in: run.folder)
        XCTAssertNotNil(served.wait(for: "recording kamera-recording-0001.mp4", seconds: 10), served.stderr)
        XCTAssertTrue(dom.output.contains("<a id=\"snapshot\" href=\"snapshot\" download=\"kamera.jpg\""), dom.output + dom.stderr)
        XCTAssertTrue(dom.output.contains("JPEG image data"), dom.output + dom.stderr)
        XCTAssertTrue(dom.output.contains(#"<button id="record" type="button">Stop recording kamera-recording-0001.mp4"#), dom.output + dom.stderr)
        XCTAssertNotNil(dom.output.range(of: #"<pre id="results">frame [0-9]+: luma \{"mean":[0-9.]+"#, options: .regularExpression),
                        "the page lists the analysers' latest record: " + dom.output)
        served.stop()
    }
}
