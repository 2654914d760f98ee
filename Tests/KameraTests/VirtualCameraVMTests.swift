import CommandLineSupport
import Foundation
import Pixels
import XCTest

/// The virtual camera in the VM: Kamera writes into v4l2loopback
/// (`/dev/video10`, `exclusive_caps=1`) and other programs read it as a
/// camera: ffmpeg's v4l2 input in each `--v4l2-format`, GStreamer's
/// `v4l2src`. A still picture through sepia, so that every frame read back
/// is comparable with the PNG render of the same picture; then the vivid
/// camera through sepia. The VM must boot; if it cannot, the test fails.
final class VirtualCameraVMTests: XCTestCase {
    static let formats: [(name: String, format: PixelFormat, fourcc: String)] = [
        ("yuyv", .yuyv, "YUYV"), ("nv12", .nv12, "NV12"), ("i420", .yu12, "YU12"), ("rgb24", .rgb24, "RGB3"),
    ]

    static let script = """
    "$KAMERA" render --frames 1 --size 320x240 -o still.png 2> still.log
    "$KAMERA" render --input still.png --crop none --filter sepia -o sepia.png 2> sepia.log
    # camera NAME ARGS...: Kamera writes the virtual camera until the readers are done.
    camera() {
      NAME=$1; shift
      "$KAMERA" preview --duration 120 -o /dev/video10 "$@" 2> $NAME-kamera.log &
      P=$!
      # Kamera's note comes once it streams: a question for the device's capabilities before then could
      # shut its output (v4l2loopback 0.12, after the steps before whose ffmpeg only wrote).
      until grep -q "a camera of" $NAME-kamera.log 2>/dev/null || ! kill -0 $P 2>/dev/null; do sleep 0.2; done
      v4l2-ctl -d /dev/video10 --get-fmt-video > $NAME-format.txt 2>&1
      timeout 60 ffmpeg -nostdin -loglevel error -f v4l2 -i /dev/video10 -frames:v 3 -c:v rawvideo -f rawvideo $NAME.raw 2> $NAME-ffmpeg.log
      echo $? > $NAME-ffmpeg.rc
      if [ $NAME = yuyv ]; then
        timeout 60 gst-launch-1.0 -q v4l2src device=/dev/video10 num-buffers=3 ! filesink location=gst.raw > gst.log 2>&1
        echo $? > gst.rc
      fi
      kill -INT $P; wait $P; echo $? > $NAME-kamera.rc
    }
    for f in yuyv nv12 i420 rgb24; do camera $f --input still.png --crop none --filter sepia --v4l2-format $f; done
    camera vivid --camera /dev/video0 --filter sepia
    # Unplugged: vivid's driver unbound for 3 s mid-run, then bound again; ffmpeg reads the virtual camera throughout.
    ffmpeg -nostdin -loglevel error -f lavfi -i color=c=red:s=64x48 -frames:v 1 red.png
    "$KAMERA" preview --camera /dev/video0 --filter sepia -o /dev/video10 --fallback-image red.png --duration 120 2> unplug-kamera.log &
    P=$!
    until grep -q "a camera of" unplug-kamera.log 2>/dev/null || ! kill -0 $P 2>/dev/null; do sleep 0.2; done
    timeout 60 ffmpeg -nostdin -loglevel info -f v4l2 -i /dev/video10 -t 11 -vf scale=4:4,format=rgb24,showinfo \
      -fps_mode passthrough -c:v rawvideo -f rawvideo unplug.raw 2> unplug-ffmpeg.log &
    R=$!
    sleep 3; echo vivid.0 > /sys/bus/platform/drivers/vivid/unbind; echo $? > unbind.rc
    sleep 3; echo vivid.0 > /sys/bus/platform/drivers/vivid/bind; echo $? > bind.rc
    wait $R; echo $? > unplug-ffmpeg.rc
    kill -INT $P; wait $P; echo $? > unplug-kamera.rc
    # What is not a virtual camera, and a size a Y'CbCr camera cannot take: one line each.
    "$KAMERA" render -o /dev/video0 2> camera-out.log; echo $? > camera-out.rc
    "$KAMERA" render --size 321x240 -o /dev/video10 2> odd.log; echo $? > odd.rc
    # Two cameras composed: vivid beside the loopback camera, which ffmpeg feeds red, inverted (its filter after it).
    timeout 60 ffmpeg -nostdin -loglevel error -re -f lavfi -i color=c=red:s=640x360:r=30 -t 40 -pix_fmt yuyv422 -f v4l2 /dev/video10 2> feed.log &
    F=$!
    sleep 2
    "$KAMERA" render --camera /dev/video0 --camera /dev/video10 --filter invert --layout side --frames 1 -o composed.png 2> composed.log
    echo $? > composed.rc
    kill $F; wait $F || true
    """

    /// The virtual camera bench, short: each program once, 4 s.
    static let benchScript = """
    "$KAMERA" bench --virtual-camera-only --stream-seconds 4 --stream-rounds 1 > bench.txt 2>&1; echo "exit $?" >> bench.txt
    """

    static let steps = [VMStep("virtual-camera", owner: "\(VirtualCameraVMTests.self)", script: script, loopback: true, timeout: 400),
                        VMStep("virtual-camera-bench", owner: "\(VirtualCameraVMTests.self)", script: benchScript, loopback: true, timeout: 300)]

    /// Each format read back by ffmpeg (and YUYV by GStreamer): three frames,
    /// each within 1 of 255 of the sepia render converted on the CPU (the
    /// same RGBA converted by the reference's formulas), the device at the
    /// picture's size in that format.
    func testReadersSeeTheRenderedPicture() throws {
        let run = VMBoot.loopback.run("virtual-camera")
        let (folder, text) = (try run.checkedFolder(), run.text)
        let picture = try run.image("sepia.png")
        XCTAssertEqual(picture.width, 320)
        let source = FrameBuffer(format: .rgba, width: 320, height: 240)
        source.allBytes.copyBytes(from: picture.pixels)
        func check(_ file: String, _ format: PixelFormat, _ label: String) throws {
            let reference = FrameBuffer(format: format, width: 320, height: 240)
            FormatConverter.convert(rgba: source, to: reference, colorSpace: .bt601Limited)
            let want = Array(reference.allBytes)
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            XCTAssertEqual(data.count, 3 * want.count, "\(label): three whole frames")
            for frame in 0..<min(3, data.count / max(want.count, 1)) {
                let got = data[data.startIndex + frame * want.count..<data.startIndex + (frame + 1) * want.count]
                let worst = zip(got, want).map { abs(Int($0) - Int($1)) }.max() ?? 99
                XCTAssertLessThanOrEqual(worst, format == .rgb24 ? 0 : 1, "\(label), frame \(frame)")
            }
        }
        for (name, format, fourcc) in Self.formats {
            let log = (try? text("\(name)-kamera.log")) ?? ""
            // Ended by Ctrl-C once the readers were done: 130, as a shell reports it.
            XCTAssertEqual(try text("\(name)-kamera.rc").trimmingCharacters(in: .whitespacesAndNewlines), "130", log)
            XCTAssertTrue(log.contains("/dev/video10 (Loopback MJPEG): a camera of 320x240 \(name) at 30 fps"), log)
            XCTAssertNotNil(log.range(of: "/dev/video10: [0-9]+ frames written", options: .regularExpression), log)
            XCTAssertEqual(try text("\(name)-ffmpeg.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0", (try? text("\(name)-ffmpeg.log")) ?? "")
            let device = try text("\(name)-format.txt")
            XCTAssertTrue(device.contains("'\(fourcc)'") && device.contains("320/240"), "\(name): \(device)")
            try check("\(name).raw", format, "\(name) read by ffmpeg")
        }
        XCTAssertEqual(try text("gst.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0", (try? text("gst.log")) ?? "")
        try check("gst.raw", .yuyv, "yuyv read by GStreamer's v4l2src")
    }

    /// vivid through sepia into the virtual camera: ffmpeg reads three frames
    /// of the square picture, and sepia gives no blue (Cb above Cr) where
    /// vivid's bars have it. A camera named as the output, and an odd size: one line each.
    func testTheFilteredCameraAndWhatIsRefused() throws {
        let run = VMBoot.loopback.run("virtual-camera")
        let (folder, text) = (try run.checkedFolder(), run.text)
        let log = (try? text("vivid-kamera.log")) ?? ""
        XCTAssertEqual(try text("vivid-kamera.rc").trimmingCharacters(in: .whitespacesAndNewlines), "130", log)
        let device = try text("vivid-format.txt")
        let size = try XCTUnwrap(device.split(separator: "\n").first { $0.contains("Width/Height") }, device)
        let numbers = size.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        XCTAssertEqual(numbers.count, 2, device)
        let (width, height) = (numbers.first ?? 0, numbers.last ?? 0)
        XCTAssertEqual(width, height, "the center-cropped square: \(device)")
        let data = [UInt8](try Data(contentsOf: folder.appendingPathComponent("vivid.raw")))
        XCTAssertEqual(data.count, 3 * width * height * 2, "three YUYV frames")
        var blue = 0, pairs = 0
        for i in stride(from: 0, to: data.count - 3, by: 4) {
            pairs += 1
            if Int(data[i + 1]) > Int(data[i + 3]) + 4 { blue += 1 }
        }
        XCTAssertGreaterThan(pairs, 0)
        XCTAssertEqual(blue, 0, "pixel pairs bluer than sepia makes them: \(blue) of \(pairs)")

        for (name, words) in [("camera-out", ["/dev/video0", "not a video output but a camera", "modprobe v4l2loopback"]),
                              ("odd", ["321x240", "even sizes", "--size 320x240"])] {
            let message = try text("\(name).log")
            XCTAssertEqual(try text("\(name).rc").trimmingCharacters(in: .whitespacesAndNewlines), "1", message)
            let lines = message.split(separator: "\n").filter { !$0.isEmpty }
            XCTAssertEqual(lines.count, 1, message)
            for word in words { XCTAssertTrue(message.contains(word), "\(name): \(word) in \(message)") }
        }
    }

    /// Unplugged mid-run (vivid's driver unbound for 3 s, then bound again),
    /// the camera gives way to `--fallback-image` at its rate: ffmpeg, reading
    /// the virtual camera throughout, sees sepia frames, then red ones, then
    /// sepia again, never 2 s apart (vivid sends 5 a second); Kamera says when it lost the
    /// camera and when it was back.
    func testTheVirtualCameraOutlivesAnUnpluggedCamera() throws {
        let run = VMBoot.loopback.run("virtual-camera")
        let (folder, text) = (try run.checkedFolder(), run.text)
        let log = (try? text("unplug-kamera.log")) ?? ""
        XCTAssertEqual(try text("unbind.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0")
        XCTAssertEqual(try text("bind.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0")
        XCTAssertEqual(try text("unplug-kamera.rc").trimmingCharacters(in: .whitespacesAndNewlines), "130", log)
        XCTAssertTrue(log.contains("/dev/video0: the camera stopped") && log.contains("sending the no-signal picture"), log)
        XCTAssertNotNil(log.range(of: "/dev/video0: back after [0-9.]+ s of no signal", options: .regularExpression), log)
        XCTAssertTrue(log.contains("the camera was lost 1 time"), log)
        let ffmpeg = (try? text("unplug-ffmpeg.log")) ?? ""
        XCTAssertEqual(try text("unplug-ffmpeg.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0", ffmpeg)
        // Each frame: its time (showinfo) and its mean color (4x4 RGB).
        let times = ffmpeg.split(separator: "\n").compactMap { line -> Double? in
            guard let r = line.range(of: "pts_time:") else { return nil }
            return Double(line[r.upperBound...].prefix { !$0.isWhitespace })
        }
        let data = [UInt8](try Data(contentsOf: folder.appendingPathComponent("unplug.raw")))
        // The frame read as -t ran out may have its time but no bytes.
        XCTAssertTrue(data.count == times.count * 48 || data.count == (times.count - 1) * 48, "a 4x4 RGB frame for each time: \(data.count) bytes, \(times.count) times")
        let kinds = (0..<data.count / 48).map { frame -> Character in
            let pixels = data[frame * 48..<(frame + 1) * 48]
            let mean = (0..<3).map { c in stride(from: c, to: 48, by: 3).map { Int(pixels[pixels.startIndex + $0]) }.reduce(0, +) / 16 }
            // The red still; else the camera through sepia (red at least green at least blue).
            if mean[0] > 200 && mean[1] < 50 && mean[2] < 50 { return "r" }
            return mean[0] >= mean[1] && mean[1] >= mean[2] ? "s" : "?"
        }
        let runs = kinds.reduce(into: [(Character, Int)]()) { runs, kind in
            if runs.last?.0 == kind { runs[runs.count - 1].1 += 1 } else { runs.append((kind, 1)) }
        }
        XCTAssertEqual(runs.map(\.0), ["s", "r", "s"], "sepia, the fallback, sepia again: \(String(kinds))")
        let red = runs.count == 3 ? runs[1].1 : 0
        XCTAssertGreaterThan(red, 5, "the fallback at the camera's rate through 3 s: \(String(kinds))")
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        // vivid sends a frame each 0.2 s; the unplug itself (the kernel's unbind, the emulated VM) was seen to take up to 1 s.
        XCTAssertLessThan(gaps.max() ?? 99, 2.0, "the longest wait between frames read: \(times)")
    }

    /// Two cameras composed (`--layout side`): vivid, and the loopback camera
    /// fed red by ffmpeg with `--filter invert` after it, so only it is
    /// inverted: a 720x360 picture, the right half cyan, the left vivid's bars.
    func testTwoCamerasComposedSideBySide() throws {
        let run = VMBoot.loopback.run("virtual-camera")
        let log = (try? run.text("composed.log")) ?? ""
        XCTAssertEqual(try run.text("composed.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0", log)
        let picture = try run.image("composed.png")
        XCTAssertEqual(picture.width, 720, log)
        XCTAssertEqual(picture.height, 360, log)
        func mean(_ columns: Range<Int>) -> [Int] {
            var sums = [0, 0, 0]
            for y in 0..<picture.height {
                for x in columns {
                    let p = picture.pixel(x, y)
                    for c in 0..<3 { sums[c] += p[c] }
                }
            }
            return sums.map { $0 / (picture.height * columns.count) }
        }
        let left = mean(0..<360), right = mean(360..<720)
        XCTAssertTrue(right[0] < 40 && right[1] > 210 && right[2] > 210, "the loopback camera's red, inverted: \(right)")
        XCTAssertGreaterThan(left[0], 60, "vivid's bars, not inverted: \(left)")
    }

    /// `kamera bench --virtual-camera-only` measures Kamera writing vivid's
    /// picture into v4l2loopback, unfiltered and with sepia, beside ffmpeg
    /// with colorchannelmixer: a row each with its CPU and the frames read
    /// back, a ratio to ffmpeg for Kamera's, and glass to glass where the
    /// reader showed a switch of the picture before the next.
    func testTheBenchMeasuresKameraBesideFFmpeg() throws {
        let run = VMBoot.loopback.run("virtual-camera-bench")
        let report = try run.text("bench.txt")
        XCTAssertTrue(report.contains("exit 0"), report)
        XCTAssertFalse(report.contains("not measured") || report.contains("skipped"), report)
        let measured = try GlassToGlassRows.check(report, programs: ["ffmpeg … colorchannelmixer -f v4l2", "kamera -o /dev/videoN", "kamera -o /dev/videoN --filter sepia"])
        XCTAssertGreaterThan(measured, 0, report)
    }
}
