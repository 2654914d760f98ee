import Capture
import Foundation
import GPU
import Pixels
import Render
import XCTest

/// The camera against the kernel's vivid driver, inside the VM from
/// shared/vm/run-in-vm: one boot runs every step, then the results are checked
/// here. The VM must boot; if it cannot, the test fails.
final class CameraVMTests: XCTestCase {
    static let script = """
    set -u
    K="$KAMERA"
    D=/dev/video0
    $K devices --json > devices.json
    v4l2-ctl -d $D --info > info.txt
    $K devices --formats --json $D > formats.json
    v4l2-ctl -d $D --list-formats-ext > formats.txt
    $K controls $D > controls.txt
    v4l2-ctl -d $D -l > ctl.txt
    $K controls $D --set brightness=140 --set osd_text_mode=none > set.txt
    v4l2-ctl -d $D --get-ctrl brightness --get-ctrl osd_text_mode > get.txt
    $K controls $D --set brightness=999 2> err-range.txt; echo $? > err-range.rc
    $K controls $D --set nosuch=1 2> err-name.txt; echo $? > err-name.rc
    $K controls $D --set read_only_integer_32_bits=1 2> err-ro.txt; echo $? > err-ro.rc
    $K controls $D --set brightness=100 --set nosuch=1 2> err-all.txt; echo $? > err-all.rc
    v4l2-ctl -d $D --get-ctrl brightness > get-all.txt
    $K controls -d $D --json > controls.json
    for f in yuyv nv12 rgb24; do
      $K render -v --camera $D --format $f --input-size 640x480 --frames 30 --save-input $f.raw -o $f-sq-%02d.png 2> $f.log
      $K render --camera $D --format $f --input-size 640x480 --frames 2 --crop none --save-input $f-none.raw -o $f-none-%d.png
    done
    $K render -v --camera $D --format yuyv --input-size 640x480 --zoom 0.5 --size 240x240 --frames 3 --save-input zoom.raw -o zoom-%d.png 2> zoom.log
    v4l2-ctl -d $D --get-fmt-video > fmt-before.txt
    $K render -v --camera $D --fps max --frames 60 --size 32x32 -o max-%02d.png 2> max.log
    v4l2-ctl -d $D --get-fmt-video > fmt-after.txt
    $K render --camera $D --fps max --input-size 1920x1080 --frames 1 --size 32x32 -o slowmax.png 2> slowmax.log; echo $? > slowmax.rc
    $K render -v --camera $D --fps max --frames 10 --cube --size 1024x1024 -o slow-%02d.png 2> slow.log
    for f in yuyv nv12 bgra grey; do
      $K render -v --gpu gbm:/dev/dri/card0 --camera $D --format $f --input-size 640x480 --frames 3 --upload dmabuf --save-input dm-$f.raw -o dm-$f-%d.png 2> dm-$f.log
    done
    $K render --gpu gbm:/dev/dri/card0 --camera $D --format grey --input-size 640x480 --frames 3 --upload dmabuf --size 200x200 --save-input dm-small.raw -o dm-small-%d.png
    $K render -v --gpu gbm:/dev/dri/card0 --camera $D --format rgb24 --input-size 640x480 -o dm-rgb24.png 2> dm-rgb24.log
    $K render -v --gpu gbm:/dev/dri/card0 --gles 2 --camera $D --format grey --input-size 640x480 -o dm-grey2.png 2> dm-grey2.log
    $K render -v --gpu gbm:/dev/dri/card0 --camera $D --format uyvy --input-size 640x480 -o dm-uyvy.png 2> dm-uyvy.log
    $K render -v --gpu gbm:/dev/dri/card0 --camera $D --format nv12 --input-size 640x480 --frames 3 --save-input dm-auto.raw -o dm-auto-%d.png 2> dm-auto.log
    $K render -v --gpu gbm:/dev/dri/card0 --camera $D --format nv12 --input-size 640x480 --frames 3 --yuv-conversion shader \
      --save-input dm-auto-shader.raw -o dm-auto-shader-%d.png 2> dm-auto-shader.log
    $K render -v --camera $D --format yuyv --input-size 640x480 -o dm-device.png 2> dm-device.log
    $K render --camera $D --format yuyv --upload dmabuf -o dm-err.png 2> dm-err.txt; echo $? > dm-err.rc
    cut -d' ' -f1 /proc/uptime > luma-before.txt
    $K render --camera $D --format yuyv --input-size 640x480 --frames 10 --analyze luma --metadata luma.jsonl --save-input luma.raw -o luma-%d.png 2> luma.log
    cut -d' ' -f1 /proc/uptime > luma-after.txt
    v4l2-ctl -d $D -c percentage_of_dropped_buffers=100
    $K render --camera $D --input-size 320x180 --frames 1 -o silent.png 2> silent.txt; echo $? > silent.rc
    $K render -v --camera $D --input-size 320x180 --frames 1 -o silent-int.png 2> silent-int.txt &
    P=$!
    until grep -q "source: $D" silent-int.txt 2>/dev/null || ! kill -0 $P 2>/dev/null; do sleep 0.1; done
    sleep 0.5
    start=$(date +%s%N)
    kill -INT $P; wait $P; echo $? > silent-int.rc
    echo $(( ($(date +%s%N) - start) / 1000000 )) > silent-int.ms
    v4l2-ctl -d $D -c percentage_of_dropped_buffers=0
    $K render --camera $D --input-size 320x180 --frames 100000 --size 16x16 -o busy-%06d.png 2> /dev/null &
    P=$!
    until [ -e busy-000001.png ]; do sleep 0.1; done
    $K render --camera $D --frames 1 -o second.png 2> busy.txt; echo $? > busy.rc
    kill -INT $P; wait $P
    $K render --camera $D --input-size 320x180 --frames 100000 --size 16x16 -o unplug-%06d.png 2> unplug.txt &
    P=$!
    until [ -e unplug-000002.png ]; do sleep 0.1; done
    start=$(date +%s%N)
    v4l2-ctl -d $D --set-ctrl disconnect=1
    wait $P; echo $? > unplug.rc
    echo $(( ($(date +%s%N) - start) / 1000000 )) > unplug.ms
    """

    static let steps = [VMStep("camera", owner: "\(CameraVMTests.self)", script: script)]

    nonisolated(unsafe) static var run: VMScriptRun?

    override class func setUp() {
        run = VMBoot.cameras.run("camera")
    }

    override class func tearDown() {
        run?.remove()
    }

    /// The folder the VM run wrote; throws (the test fails, the others go on) when it failed.
    func folder() throws -> URL {
        try XCTUnwrap(Self.run).checkedFolder()
    }

    func file(_ name: String) throws -> String {
        try String(contentsOf: try folder().appendingPathComponent(name), encoding: .utf8)
    }

    func image(_ name: String) throws -> Image {
        let frame = try XCTUnwrap(try ImageSource(path: try folder().appendingPathComponent(name).path).nextFrame())
        return Image(width: frame.width, height: frame.height, pixels: Array(frame.planes[0].bytes))
    }

    /// The luma analyser on a live camera: one JSON line per frame, the
    /// driver's timestamps (monotonic, between the run's start and end, not
    /// from 0), and statistics equal to the CPU reference on the raw frames kept.
    func testLumaMetadataCarriesTheDriversTimestamps() throws {
        let lines = try file("luma.jsonl").split(separator: "\n")
        let log = (try? file("luma.log")) ?? ""
        XCTAssertEqual(lines.count, 10, log)
        let before = Double(try file("luma-before.txt").trimmingCharacters(in: .whitespacesAndNewlines))!
        let after = Double(try file("luma-after.txt").trimmingCharacters(in: .whitespacesAndNewlines))!
        let raw = try Data(contentsOf: try folder().appendingPathComponent("luma.raw"))
        var last = -1.0
        for (i, line) in lines.enumerated() {
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(record["frame"] as? Int, i)
            let time = try XCTUnwrap(record["timestamp"] as? Double)
            XCTAssertGreaterThan(time, last, "increasing")
            XCTAssertTrue(time >= before - 0.01 && time <= after + 0.01, "frame \(i) at \(time), the run between \(before) and \(after) s of uptime")
            last = time
            let frameBytes = 640 * 480 * 2
            let luma = (0..<640 * 480).map { raw[i * frameBytes + 2 * $0] }
            let reference = LumaReference.statistics(luma, width: 640, height: 480, limited: true)
            let got = try XCTUnwrap(record["luma"] as? [String: Any])
            XCTAssertEqual(got["mean"] as? Double ?? -1, reference.mean, accuracy: 0.001, "frame \(i)")
            XCTAssertEqual(got["focus"] as? Double ?? -1, reference.focus, accuracy: 0.01, "frame \(i)")
        }
    }

    func testDiscoveryMatchesV4L2Ctl() throws {
        let info = try file("info.txt")
        let devices = try JSONSerialization.jsonObject(with: Data(try file("devices.json").utf8)) as! [[String: Any]]
        let video0 = try XCTUnwrap(devices.compactMap { $0["device"] as? [String: Any] }.first { $0["path"] as? String == "/dev/video0" })
        for key in ["card", "driver", "busInfo"] {
            let value = try XCTUnwrap(video0[key] as? String)
            XCTAssertTrue(info.contains(value), "\(key) '\(value)' not in v4l2-ctl --info:\n\(info)")
        }
        XCTAssertEqual(video0["busy"] as? Bool, false)
    }

    func testFormatsMatchV4L2Ctl() throws {
        // v4l2-ctl: "[0]: 'YUYV' (YUYV 4:2:2)", "Size: Discrete 640x480", "Interval: Discrete 0.040s (25.000 fps)"
        var expected: [String: [String: [Double]]] = [:]
        var fourcc = "", size = ""
        for line in try file("formats.txt").split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("["), let q = t.firstIndex(of: "'") {
                // The code between the quotes: four characters, then "-BE" for a big-endian one ('Y16 -BE').
                fourcc = String(t[t.index(after: q)...].prefix { $0 != "'" }); expected[fourcc] = [:]
            } else if t.hasPrefix("Size: Discrete ") {
                size = String(t.dropFirst(15)); expected[fourcc]![size] = []
            } else if t.hasPrefix("Interval: Discrete"), let open = t.lastIndex(of: "("), let fps = Double(t[t.index(after: open)...].split(separator: " ")[0]) {
                expected[fourcc]![size]!.append(fps)
            }
        }
        let entries = try JSONSerialization.jsonObject(with: Data(try file("formats.json").utf8)) as! [[String: Any]]
        let formats = try XCTUnwrap(entries.first?["formats"] as? [[String: Any]])
        var got: [String: [String: [Double]]] = [:]
        for f in formats {
            let code = f["fourcc"] as! String
            got[code] = [:]
            for s in f["sizes"] as! [[String: Any]] {
                got[code]!["\(s["width"]!)x\(s["height"]!)"] = (s["rates"] as! [Double])
            }
        }
        XCTAssertGreaterThan(expected.count, 10)
        XCTAssertEqual(Set(got.keys), Set(expected.keys))
        for (code, sizes) in expected {
            XCTAssertEqual(Set(got[code]?.keys.map { $0 } ?? []), Set(sizes.keys), code)
            for (size, rates) in sizes {
                let mine = got[code]?[size] ?? []
                XCTAssertEqual(mine.count, rates.count, "\(code) \(size)")
                for (a, b) in zip(mine.sorted(), rates.sorted()) { XCTAssertEqual(a, b, accuracy: 0.01, "\(code) \(size)") }
            }
        }
    }

    func testControlsMatchV4L2CtlAndSetReadBack() throws {
        // v4l2-ctl -l: "                     brightness 0x00980900 (int)    : min=0 max=255 ..."
        let names = try file("ctl.txt").split(separator: "\n").compactMap { line -> String? in
            let parts = line.split(separator: " ")
            return parts.count > 2 && parts[1].hasPrefix("0x") ? String(parts[0]) : nil
        }
        XCTAssertTrue(names.contains("brightness"))
        let mine = try file("controls.txt").split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { String($0.split(separator: " ")[0]) }
        XCTAssertEqual(Set(mine), Set(names), "control names")
        let get = try file("get.txt")
        XCTAssertTrue(get.contains("brightness: 140"), get)
        XCTAssertTrue(get.contains("osd_text_mode: 2"), get)
        XCTAssertEqual(try file("err-range.rc").trimmingCharacters(in: .whitespacesAndNewlines), "1")
        XCTAssertTrue(try file("err-range.txt").contains("out of range; the range is 0...255"))
        XCTAssertTrue(try file("err-name.txt").contains("has no control 'nosuch'"))
        let readOnly = try file("err-ro.txt")
        XCTAssertTrue(readOnly.contains("read-only"), readOnly)
    }

    /// The PNG of the last captured frame matches the CPU reference decode of
    /// the raw frame the same run saved (≤ 2 of 255), square crop and whole frame.
    func testCapturedFramesMatchCPUReference() throws {
        for format in [PixelFormat.yuyv, .nv12, .rgb24] {
            let log = try file("\(format.name).log")
            XCTAssertTrue(log.contains("640x480 \(format.v4l2Codes[0])"), log)
            XCTAssertTrue(log.contains("wrote \(format.name)-sq-29.png"), log)
            for (raw, png, crop) in [("\(format.name).raw", "\(format.name)-sq-29.png", CropMode.square),
                                     ("\(format.name)-none.raw", "\(format.name)-none-1.png", .none)] {
                let full = Self.reference(try RawVideoSource.lastFrame(of: try folder().appendingPathComponent(raw), format: format))
                let reference = crop == .square ? CPUReference.crop(full, x: 80, y: 0, width: 480, height: 480) : full
                XCTAssertClose(try image(png), reference, tolerance: 2, "\(format.name) \(crop)")
            }
        }
    }

    /// The CPU reference of a tightly packed frame: YUV decoded, RGB24 and BGRA reordered.
    static func reference(_ frame: Frame) -> Image {
        if frame.format.isYUV { return CPUReference.decode(frame) }
        if frame.format == .grey {
            let bytes = frame.planes[0].bytes
            return Image(width: frame.width, height: frame.height) { x, y in
                let v = Float(bytes[y * frame.planes[0].bytesPerRow + x]) / 255
                return SIMD4(v, v, v, 1)
            }
        }
        let bytes = frame.planes[0].bytes, size = frame.format == .rgb24 ? 3 : 4
        return Image(width: frame.width, height: frame.height) { x, y in
            let i = (y * frame.width + x) * size
            let c = frame.format == .bgra ? SIMD4(bytes[i + 2], bytes[i + 1], bytes[i], bytes[i + 3])
                                          : SIMD4(bytes[i], bytes[i + 1], bytes[i + 2], size == 4 ? bytes[i + 3] : 255)
            return SIMD4<Float>(c) / 255
        }
    }

    func testFpsMaxPicksTheFastestModeAndReachesIt() throws {
        let log = try file("max.log")
        // vivid's fastest mode is 320x180 at 60 fps; NV12 is the cheapest color format there.
        XCTAssertTrue(log.contains("/dev/video0 320x180 NV12 at 60 fps"), log)
        let line = try XCTUnwrap(log.split(separator: "\n").first { $0.contains("capture rate") })
        let words = line.split(separator: " ")
        let rate = try XCTUnwrap(Double(words[try XCTUnwrap(words.firstIndex(of: "rate")) + 1]), String(line))
        XCTAssertEqual(rate, 60, accuracy: 6, "within 10 % of 60 fps")
    }

    /// Nothing above 30 fps at the size asked: it runs at the best rate and
    /// says so; and the camera is left in the mode Kamera found it in.
    func testFpsMaxSaysWhenNothingIsFasterAndLeavesTheCameraAsFound() throws {
        let log = try file("slowmax.log")
        XCTAssertEqual(try file("slowmax.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0", log)
        XCTAssertTrue(log.contains("kamera: note: --fps max: /dev/video0 offers nothing faster than 5 fps; running at 5 fps, 1920x1080"), log)
        XCTAssertEqual(try file("fmt-after.txt"), try file("fmt-before.txt"), "the camera's format after --fps max")
    }

    /// `controls --set` checks every assignment before setting any; `--json` lists them.
    func testControlsAreAllCheckedBeforeAnyIsSet() throws {
        let error = try file("err-all.txt"), after = try file("get-all.txt")
        XCTAssertEqual(try file("err-all.rc").trimmingCharacters(in: .whitespacesAndNewlines), "1")
        XCTAssertTrue(error.contains("has no control 'nosuch'; nothing was set"), error)
        XCTAssertTrue(after.contains("brightness: 140"), "brightness=100 must not be set: \(after)")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try file("controls.json").utf8)) as? [[String: Any]])
        let brightness = try XCTUnwrap(json.first { $0["name"] as? String == "brightness" })
        XCTAssertEqual(brightness["value"] as? Int, 140)
        XCTAssertEqual(brightness["maximum"] as? Int, 255)
    }

    func testBusyDeviceSaysWhoHoldsIt() throws {
        XCTAssertNotEqual(try file("busy.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0")
        let message = try file("busy.txt")
        XCTAssertTrue(message.hasPrefix("kamera: error: /dev/video0 is busy: held by kamera (pid "), message)
        XCTAssertEqual(message.split(separator: "\n").count, 1)
    }

    /// A camera that gives no frame (vivid told to drop every buffer): the
    /// run ends after the camera's timeout with one line; Ctrl-C ends the
    /// wait at once, with no file written.
    func testASilentCameraTimesOutAndCtrlCEndsTheWait() throws {
        let message = try file("silent.txt")
        XCTAssertEqual(try file("silent.rc").trimmingCharacters(in: .whitespacesAndNewlines), "1", message)
        XCTAssertEqual(message, "kamera: error: /dev/video0: no frame from the camera in 10000 ms\n")
        let interrupted = try file("silent-int.txt")
        XCTAssertEqual(try file("silent-int.rc").trimmingCharacters(in: .whitespacesAndNewlines), "130", interrupted)
        XCTAssertTrue(interrupted.contains("interrupted after 0 of 1 frame(s)"), interrupted)
        let ms = try XCTUnwrap(Int(try file("silent-int.ms").trimmingCharacters(in: .whitespacesAndNewlines)))
        print("silent camera: kamera exited \(ms) ms after SIGINT")
        // Catches a wait that runs to the camera's 10 s timeout, with room for a loaded machine.
        XCTAssertLessThan(ms, 6_000, "Ctrl-C ends the wait for a frame")
        let written = try FileManager.default.contentsOfDirectory(atPath: try folder().path).filter { $0.hasPrefix("silent") && $0.hasSuffix(".png") }
        XCTAssertEqual(written, [])
    }

    func testUnplugEndsTheRunCleanly() throws {
        XCTAssertNotEqual(try file("unplug.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0")
        let message = try file("unplug.txt")
        XCTAssertTrue(message.contains("the camera stopped"), message)
        XCTAssertEqual(message.split(separator: "\n").count, 1, message)
        let ms = try XCTUnwrap(Int(try file("unplug.ms").trimmingCharacters(in: .whitespacesAndNewlines)))
        // A bound that catches a hang, not a speed target: the VM runs under
        // emulation on a shared machine (2,238 ms was seen once under load).
        // The figure is reported here and by `kamera bench` in the VM.
        print("unplug: kamera exited \(ms) ms after vivid's disconnect (v4l2-ctl's own start included)")
        XCTAssertLessThan(ms, 10_000, "exit after the disconnect, not a hang")
        let pngs = try FileManager.default.contentsOfDirectory(atPath: try folder().path).filter { $0.hasPrefix("unplug-") }
        XCTAssertTrue(pngs.allSatisfy { $0.hasSuffix(".png") })
        for name in pngs { XCTAssertNoThrow(try ImageSource(path: try folder().appendingPathComponent(name).path), name) }
    }

    /// vivid has no zoom control, so --zoom 0.5 (factor 2 of at most 4) crops
    /// digitally: the output shows the center half of the square.
    func testDigitalZoomShowsTheCenterHalf() throws {
        XCTAssertTrue(try file("zoom.log").contains("zoom 2.00x (digital)"))
        let last = try RawVideoSource.lastFrame(of: try folder().appendingPathComponent("zoom.raw"), format: .yuyv)
        let reference = CPUReference.crop(CPUReference.decode(last), x: 200, y: 120, width: 240, height: 240)
        XCTAssertClose(try image("zoom-2.png"), reference, tolerance: 2, "zoom 2x")
    }

    /// Rendering 1024x1024 cubes under emulation is slower than 60 fps capture:
    /// late frames are dropped and counted, never queued.
    func testLateFramesAreDroppedAndCounted() throws {
        let log = try file("slow.log")
        let line = try XCTUnwrap(log.split(separator: "\n").first { $0.contains("dropped late") }, log)
        let words = line.split(separator: " ")
        let captured = try XCTUnwrap(Int(words[words.firstIndex(of: "captured")! + 1]))
        let late = try XCTUnwrap(Int(words[words.firstIndex(of: "late,")! - 2]))
        XCTAssertGreaterThan(late, 0, String(line))
        XCTAssertEqual(captured - late, 10 + 1, "every frame captured was rendered, dropped late, or the one left waiting (±1): \(line)")
    }

    /// Zero-copy: on EGL over GBM on vkms the camera fills DRM-allocated buffers
    /// that the GPU imports. The PNGs match the CPU reference of the raw frame
    /// and the copy path on the same frame.
    func testDMABufImportMatchesCopyAndReference() throws {
        for format in [PixelFormat.yuyv, .nv12, .bgra, .grey] {
            let log = try file("dm-\(format.name).log")
            XCTAssertTrue(log.contains("upload: dmabuf (camera buffers: dma-buf from /dev/dri/card0)"), log)
            XCTAssertTrue(log.contains("upload dmabuf"), "status line names the path: \(log)")
            let frame = try RawVideoSource.lastFrame(of: try folder().appendingPathComponent("dm-\(format.name).raw"), format: format)
            let full = Self.reference(frame)
            let imported = try image("dm-\(format.name)-2.png")
            XCTAssertClose(imported, CPUReference.crop(full, x: 80, y: 0, width: 480, height: 480), tolerance: 2, "\(format.name) dma-buf vs CPU")
            // The same frame through the copy path, here on the host.
            let copied = try GPUHarness.render(frame, settings: RenderSettings())
            XCTAssertClose(imported, copied, tolerance: 1, "\(format.name) dma-buf vs copy")
        }
    }

    /// An imported GREY frame scaled down is filtered as the copied one is
    /// when the GPU reads it (on llvmpipe `auto` halves a copy on the CPU first).
    func testImportedGreyScalesAsTheCopyDoes() throws {
        let last = try RawVideoSource.lastFrame(of: try folder().appendingPathComponent("dm-small.raw"), format: .grey)
        var settings = RenderSettings()
        settings.outputSize = (200, 200)
        settings.yuvConversion = .shader
        let copied = try GPUHarness.render(last, settings: settings)
        XCTAssertClose(try image("dm-small-2.png"), copied, tolerance: 1, "GREY dma-buf vs copy at 200x200")
    }

    /// Where import is not possible or known bad, frames are copied and the log says why.
    func testCopyFallbackSaysWhy() throws {
        let rgb24 = try file("dm-rgb24.log")
        XCTAssertTrue(rgb24.contains("frames are copied: RGB3 frames are not imported"), rgb24)
        XCTAssertTrue(rgb24.contains("upload: copy (camera buffers: mmap)"), rgb24)
        let grey = try file("dm-grey2.log")
        XCTAssertTrue(grey.contains("frames are copied: GREY frames are imported only with OpenGL ES 3 (texture swizzle), and the context is OpenGL ES 2"), grey)
        let uyvy = try file("dm-uyvy.log")
        XCTAssertTrue(uyvy.contains("frames are copied: UYVY frames are converted on the CPU into memory of Kamera's own"), uyvy)
        XCTAssertTrue(uyvy.contains("upload: copy (camera buffers: mmap)"), uyvy)
        // --upload auto on a software renderer: YUV is converted on the CPU, so it is copied, not imported
        // (the GPU's shader would convert an imported frame); with --yuv-conversion shader it is imported.
        let auto = try file("dm-auto.log")
        XCTAssertTrue(auto.contains("frames are copied: NV12 frames are converted on the CPU here, from a copy"), auto)
        XCTAssertTrue(auto.contains("upload: copy (camera buffers: mmap)"), auto)
        let shader = try file("dm-auto-shader.log")
        XCTAssertTrue(shader.contains("upload: dmabuf (camera buffers: dma-buf from /dev/dri/card0)"), shader)
        XCTAssertFalse(shader.contains("frames are copied"), shader)
        for name in ["dm-auto", "dm-auto-shader"] {
            let frame = try RawVideoSource.lastFrame(of: try folder().appendingPathComponent("\(name).raw"), format: .nv12)
            XCTAssertClose(try image("\(name)-2.png"), CPUReference.crop(Self.reference(frame), x: 80, y: 0, width: 480, height: 480),
                           tolerance: 2, "\(name): NV12 vs CPU")
        }
        let device = try file("dm-device.log")
        XCTAssertTrue(device.contains("frames are copied: the EGL display (device) cannot import dma-bufs"), device)
        XCTAssertEqual(try file("dm-err.rc").trimmingCharacters(in: .whitespacesAndNewlines), "1")
        let error = try file("dm-err.txt")
        XCTAssertTrue(error.hasPrefix("kamera: error: --upload dmabuf: the EGL display (device) cannot import dma-bufs"), error)
        XCTAssertEqual(error.split(separator: "\n").count, 1, error)
    }
}
