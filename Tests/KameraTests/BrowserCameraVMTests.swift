import Foundation
import XCTest

/// A browser as the virtual camera's reader, in the VM: Kamera writes a
/// still through sepia into v4l2loopback (`/dev/video10`, YUYV), and headless
/// Chromium opens it with `getUserMedia` (its permission prompt answered by
/// `--use-fake-ui-for-media-stream`), draws it to a canvas and reports a grid
/// of pixels on its console, which the test compares with the PNG render.
/// The VM must boot and Chromium must run in it; if either cannot, the test fails.
final class BrowserCameraVMTests: XCTestCase {
    /// The page: the loopback camera chosen by its label, its picture drawn
    /// at its own size once it plays, then one console line, `KAMERA-RESULT`
    /// and the size and the pixels at the centers of 20x20 cells (or why not).
    static let page = """
    <!doctype html><html><body><canvas id=c></canvas><script>
    function say(text) { console.log('KAMERA-RESULT ' + text); }
    async function read() {
      const devices = await navigator.mediaDevices.enumerateDevices();
      const cameras = devices.filter(d => d.kind == 'videoinput');
      const loopback = cameras.find(d => d.label.includes('Loopback'));
      if (!loopback) { say('error: no loopback camera among ' + cameras.map(d => d.label).join(', ')); return; }
      const stream = await navigator.mediaDevices.getUserMedia({ video: { deviceId: { exact: loopback.deviceId } } });
      const video = document.createElement('video');
      video.muted = true;
      video.srcObject = stream;
      await video.play();
      await new Promise(done => setTimeout(done, 1000));
      const canvas = document.getElementById('c');
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      const context = canvas.getContext('2d');
      context.drawImage(video, 0, 0);
      const pixels = [];
      for (let y = 10; y < canvas.height; y += 20) {
        for (let x = 10; x < canvas.width; x += 20) {
          const p = context.getImageData(x, y, 1, 1).data;
          pixels.push(x + ':' + y + ':' + p[0] + ':' + p[1] + ':' + p[2]);
        }
      }
      say(stream.getVideoTracks()[0].label + '|' + canvas.width + 'x' + canvas.height + '|' + pixels.join(' '));
    }
    read().catch(e => say('error: ' + e.name + ': ' + e.message));
    </script></body></html>
    """

    static let script = """
    "$KAMERA" render --frames 1 --size 320x240 -o still.png 2> still.log
    "$KAMERA" render --input still.png --crop none --filter sepia -o sepia.png 2> sepia.log
    "$KAMERA" preview --duration 300 -o /dev/video10 --input still.png --crop none --filter sepia 2> kamera.log &
    P=$!
    until grep -q "a camera of" kamera.log 2>/dev/null || ! kill -0 $P 2>/dev/null; do sleep 0.2; done
    # Chromium in the emulated VM takes about a minute to start and read; no D-Bus there (it says so, harmlessly).
    HOME="$PWD" timeout 240 chromium --headless=new --no-sandbox --disable-gpu --use-fake-ui-for-media-stream \\
      --autoplay-policy=no-user-gesture-required --user-data-dir="$PWD/chromium" --enable-logging=stderr --v=0 \\
      "file://$PWD/camera.html" > chromium.out 2> chromium.log &
    C=$!
    until grep -q KAMERA-RESULT chromium.log 2>/dev/null || ! kill -0 $C 2>/dev/null; do sleep 0.5; done
    kill $C 2>/dev/null; wait $C
    grep -o 'KAMERA-RESULT [^"]*' chromium.log > result.txt
    kill -INT $P; wait $P; echo $? > kamera.rc
    rm -rf chromium
    """

    static let steps = [VMStep("browser", owner: "\(BrowserCameraVMTests.self)", script: script, files: ["camera.html": page],
                               loopback: true, timeout: 400)]

    /// Chromium's pixels against the sepia render: at each grid point where
    /// the render is flat around it (so that YUYV's shared chroma plays no
    /// part), within 3 of 255 per channel (1 seen): Kamera's RGBA → Y'CbCr (BT.601,
    /// limited range) and Chromium's way back, each rounding.
    func testChromiumReadsTheVirtualCamera() throws {
        let run = VMBoot.loopback.run("browser")
        _ = try run.checkedFolder()
        let kameraLog = (try? run.text("kamera.log")) ?? ""
        let result = ((try? run.text("result.txt")) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(kameraLog.contains("/dev/video10 (Loopback MJPEG): a camera of 320x240 yuyv at 30 fps"), kameraLog)
        XCTAssertEqual(try run.text("kamera.rc").trimmingCharacters(in: .whitespacesAndNewlines), "130", kameraLog)
        let parts = result.dropFirst("KAMERA-RESULT ".count).split(separator: "|").map(String.init)
        guard result.hasPrefix("KAMERA-RESULT "), parts.count == 3 else {
            return XCTFail("Chromium reported no picture: \(result)\n\(((try? run.text("chromium.log")) ?? "").suffix(3000))")
        }
        XCTAssertTrue(parts[0].contains("Loopback MJPEG"), "the track: \(parts[0])")
        XCTAssertEqual(parts[1], "320x240", "the picture's size in the browser")
        let reference = try run.image("sepia.png")
        XCTAssertEqual(reference.width, 320)
        var compared = 0, worst = 0
        for point in parts[2].split(separator: " ") {
            let numbers = point.split(separator: ":").compactMap { Int($0) }
            guard numbers.count == 5 else { return XCTFail("a pixel as x:y:r:g:b: \(point)") }
            let (x, y) = (numbers[0], numbers[1])
            let want = reference.pixel(x, y)
            let flat = (-3...3).allSatisfy { dy in
                (-3...3).allSatisfy { dx in
                    let p = reference.pixel(min(max(x + dx, 0), 319), min(max(y + dy, 0), 239))
                    return (0..<3).allSatisfy { abs(p[$0] - want[$0]) <= 2 }
                }
            }
            guard flat else { continue }
            compared += 1
            let difference = (0..<3).map { abs(numbers[2 + $0] - want[$0]) }.max() ?? 0
            worst = max(worst, difference)
            XCTAssertLessThanOrEqual(difference, 3, "at \(x),\(y): Chromium \(numbers[2...]), the render \(want)")
        }
        XCTAssertGreaterThanOrEqual(compared, 60, "grid points where the render is flat")
        print("Chromium against the render: \(compared) points compared, the largest difference \(worst)")
    }
}
