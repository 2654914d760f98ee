import Capture
import Lifecycle
import Pipeline
import Pixels
import Render
import XCTest

/// Camera logic that needs no camera: format negotiation, control names and
/// values (including the camera-class controls vivid lacks), and zoom math.
final class CameraUnitTests: XCTestCase {
    let webcam: [CameraFormat] = [
        CameraFormat(fourcc: "MJPG", description: "Motion-JPEG", sizes: [CameraSize(width: 1920, height: 1080, rates: [30])]),
        CameraFormat(fourcc: "YUYV", description: "YUYV 4:2:2", sizes: [
            CameraSize(width: 640, height: 480, rates: [30, 15]), CameraSize(width: 1280, height: 720, rates: [10]),
            CameraSize(width: 320, height: 240, rates: [90, 30]),
        ]),
        CameraFormat(fourcc: "NV12", description: "Y/CbCr 4:2:0", sizes: [CameraSize(width: 640, height: 480, rates: [30])]),
        CameraFormat(fourcc: "GREY", description: "8-bit Greyscale", sizes: [CameraSize(width: 640, height: 480, rates: [120])]),
    ]

    func testAutoFormatIsTheCheapestColorFormatAtTheSize() throws {
        let mode = try CameraMode.choose(CameraRequest(size: (640, 480)), from: webcam, current: (640, 480))
        XCTAssertEqual(mode.format, .nv12)
        let yuyv = try CameraMode.choose(CameraRequest(format: .native(.yuyv), size: (1280, 720)), from: webcam, current: (640, 480))
        XCTAssertEqual(yuyv, CameraMode(reading: .native(.yuyv), fourcc: "YUYV", width: 1280, height: 720, rate: nil))
        let grey = try CameraMode.choose(CameraRequest(format: .native(.grey)), from: webcam, current: (640, 480))
        XCTAssertEqual(grey.format, .grey)
    }

    /// A board's camera in formats Kamera repacks: the native format of a
    /// size is preferred to a repacked one, a repacked one is taken when asked
    /// for or when it is all there is, and asking for the native format never takes it.
    func testRepackedFormatsComeAfterNativeOnesAndOnlyWhenAskedOrAlone() throws {
        let board: [CameraFormat] = [
            CameraFormat(fourcc: "UYVY", description: "UYVY 4:2:2", sizes: [CameraSize(width: 640, height: 480, rates: [30])]),
            CameraFormat(fourcc: "YUYV", description: "YUYV 4:2:2", sizes: [CameraSize(width: 640, height: 480, rates: [30])]),
            CameraFormat(fourcc: "Y16 ", description: "16-bit Greyscale", sizes: [CameraSize(width: 640, height: 480, rates: [30])]),
        ]
        XCTAssertEqual(board[0].pixelFormat, .yuyv)
        XCTAssertEqual(board[0].repacked, .uyvy)
        XCTAssertNil(board[1].repacked)
        XCTAssertEqual(try CameraMode.choose(CameraRequest(), from: board, current: (640, 480)).fourcc, "YUYV")
        XCTAssertEqual(try CameraMode.choose(CameraRequest(format: .native(.yuyv)), from: board, current: (640, 480)).fourcc, "YUYV")
        let uyvy = try CameraMode.choose(CameraRequest(format: .repacked(.uyvy)), from: board, current: (640, 480))
        XCTAssertEqual([uyvy.fourcc, uyvy.format.name], ["UYVY", "yuyv"])
        XCTAssertEqual(uyvy.repacked, .uyvy)
        XCTAssertEqual(try CameraMode.choose(CameraRequest(), from: [board[0]], current: (640, 480)).fourcc, "UYVY")
        XCTAssertEqual(try CameraMode.choose(CameraRequest(format: .repacked(.y16)), from: board, current: (640, 480)).format, .grey)
        XCTAssertThrowsError(try CameraMode.choose(CameraRequest(format: .native(.grey)), from: board, current: (640, 480))) {
            XCTAssertTrue("\($0)".hasSuffix("does not offer grey (GREY); it offers UYVY, YUYV, Y16"), "\($0)")
        }
        XCTAssertThrowsError(try CameraMode.choose(CameraRequest(format: .native(.yuyv)), from: [board[0]], current: (640, 480), path: "/dev/video3")) {
            XCTAssertEqual("\($0)", "/dev/video3 does not offer yuyv (YUYV); it offers UYVY")
        }
        XCTAssertThrowsError(try CameraMode.choose(CameraRequest(format: .repacked(.nv21)), from: board, current: (640, 480), path: "/dev/video3")) {
            XCTAssertEqual("\($0)", "/dev/video3 does not offer nv21 (NV21); it offers UYVY, YUYV, Y16")
        }
    }

    /// The 32-bit B G R orders: AR24 is BGRA with its alpha; XR24 and the
    /// older BGR4 are B G R and a byte read as opaque (vivid writes 0 there),
    /// and a camera offering only BGR4 is opened in it.
    func testXR24AndBGR4AreReadWithoutAlpha() throws {
        let formats = ["AR24", "XR24", "BGR4"].map { CameraFormat(fourcc: $0, description: $0, sizes: [CameraSize(width: 640, height: 480, rates: [30])]) }
        XCTAssertEqual(formats.map(\.repacked), [nil, .bgrx, .bgrx])
        XCTAssertEqual(PixelFormat(v4l2Code: "AR24"), .bgra)
        XCTAssertNil(PixelFormat(v4l2Code: "XR24"))
        XCTAssertNil(PixelFormat(v4l2Code: "BGR4"))
        let old = try CameraMode.choose(CameraRequest(format: .repacked(.bgrx)), from: [formats[2]], current: (640, 480))
        XCTAssertEqual([old.fourcc, old.format.name], ["BGR4", "rgba"])
        XCTAssertEqual(old.repacked, .bgrx)
        XCTAssertEqual(try CameraMode.choose(CameraRequest(format: .repacked(.bgrx)), from: formats.reversed(), current: (640, 480)).fourcc, "XR24")
    }

    /// Each kind of `--format` picks only its own kind of camera format: a
    /// native RGB24 request never takes libv4l's RGB24 conversion of HSV3, and
    /// a libv4l code matches with or without its padding.
    func testEachFormatKindPicksItsOwnFormats() throws {
        var hsv = CameraFormat(fourcc: "HSV3", description: "24-bit HSV 8-8-8", sizes: [CameraSize(width: 640, height: 480, rates: [30])])
        hsv.viaLibV4L = true
        var y16be = CameraFormat(fourcc: "Y16 -BE", description: "16-bit Greyscale BE", sizes: [CameraSize(width: 640, height: 480, rates: [30])])
        y16be.viaLibV4L = true
        let formats = webcam + [hsv, y16be]
        func fourcc(_ format: InputFormat?) throws -> String {
            try CameraMode.choose(CameraRequest(format: format, size: (640, 480)), from: formats, current: (640, 480)).fourcc
        }
        XCTAssertEqual(try fourcc(nil), "NV12")
        XCTAssertEqual(try fourcc(.native(.yuyv)), "YUYV")
        XCTAssertEqual(try CameraMode.choose(CameraRequest(format: .compressed(.mjpeg)), from: formats, current: (1920, 1080)).fourcc, "MJPG")
        XCTAssertEqual(try fourcc(.libV4L("HSV3")), "HSV3")
        XCTAssertEqual(try fourcc(.libV4L("Y16-BE")), "Y16 -BE")
        XCTAssertTrue(try CameraMode.choose(CameraRequest(format: .libV4L("HSV3")), from: formats, current: (640, 480)).viaLibV4L)
        XCTAssertThrowsError(try fourcc(.native(.rgb24))) {
            XCTAssertTrue("\($0)".hasSuffix("does not offer rgb24 (RGB3); it offers MJPG, YUYV, NV12, GREY, HSV3, Y16 -BE"), "\($0)")
        }
        XCTAssertThrowsError(try fourcc(.compressed(.h264))) {
            XCTAssertTrue("\($0)".hasSuffix("does not offer H264; it offers MJPG, YUYV, NV12, GREY, HSV3, Y16 -BE"), "\($0)")
        }
        XCTAssertThrowsError(try fourcc(.libV4L("RGB4"))) {
            XCTAssertTrue("\($0)".hasSuffix("offers no RGB4 that libv4l converts; it converts HSV3, Y16 -BE (the camera offers MJPG, YUYV, NV12, GREY, HSV3, Y16 -BE)"), "\($0)")
        }
        XCTAssertEqual(hsv.reading?.howRead, "converted to rgb24 by libv4l on the CPU")
        XCTAssertEqual(formats.map { $0.reading?.decoded }, [.rgba, .yuyv, .nv12, .grey, .rgb24, .rgb24])
        // A V4L2 code is read one way only: none Kamera reads as it is is also one it repacks.
        for format in PixelFormat.allCases { for code in format.v4l2Codes { XCTAssertNil(RepackedFormat(v4l2Code: code), code) } }
        XCTAssertEqual(InputFormat(name: "HSV3", camera: true), .libV4L("HSV3"))
        XCTAssertEqual(InputFormat(name: "Y16 -BE", camera: true), .libV4L("Y16-BE"))
        XCTAssertNil(InputFormat(name: "HSV3", camera: false))
        XCTAssertEqual(InputFormat(name: "h265", camera: true), .compressed(.hevc))
        XCTAssertNil(InputFormat(name: "h264", camera: false))
        XCTAssertEqual(InputFormat(name: "uyvy", camera: false), .repacked(.uyvy))
        XCTAssertEqual(InputFormat(name: "nv12", camera: true), .native(.nv12))
    }

    func testFpsMaxPicksTheHighestRateAndSaysWhenNothingBeatsThirty() throws {
        let mode = try CameraMode.choose(CameraRequest(rate: .max), from: webcam, current: (640, 480))
        XCTAssertEqual(mode, CameraMode(reading: .native(.yuyv), fourcc: "YUYV", width: 320, height: 240, rate: 90))
        XCTAssertNil(mode.note)
        // Nothing above 30 fps: it runs at the best there is, and says so.
        let slow = try CameraMode.choose(CameraRequest(size: (640, 480), rate: .max), from: Array(webcam.prefix(3)), current: (640, 480),
                                         path: "/dev/video3")
        XCTAssertEqual(slow.rate, 30)
        XCTAssertEqual([slow.width, slow.height], [640, 480])
        XCTAssertEqual(slow.note, "the frame rate max: /dev/video3 offers nothing faster than 30 fps; running at 30 fps, 640x480 \(slow.fourcc)")
    }

    func testSizesInMessagesAreListedBySize() {
        XCTAssertThrowsError(try CameraMode.choose(CameraRequest(size: (800, 600)), from: webcam, current: (640, 480))) {
            let listed = "\($0)".components(separatedBy: "sizes: ").last ?? ""
            let areas = listed.split(separator: ",").compactMap { parseSize($0.trimmingCharacters(in: .whitespaces)) }.map { $0.width * $0.height }
            XCTAssertGreaterThan(areas.count, 1, "\($0)")
            XCTAssertEqual(areas, areas.sorted(), "\($0)")
        }
    }

    func testNegotiationErrorsListWhatIsOffered() {
        XCTAssertThrowsError(try CameraMode.choose(CameraRequest(format: .native(.rgb24)), from: webcam, current: (640, 480), path: "/dev/video3")) {
            XCTAssertEqual("\($0)", "/dev/video3 does not offer rgb24 (RGB3); it offers MJPG, YUYV, NV12, GREY")
        }
        XCTAssertThrowsError(try CameraMode.choose(CameraRequest(size: (800, 600)), from: webcam, current: (640, 480))) {
            XCTAssertTrue("\($0)".contains("does not offer 800x600"), "\($0)")
            XCTAssertTrue("\($0)".contains("1280x720"), "\($0)")
        }
        XCTAssertThrowsError(try CameraMode.choose(CameraRequest(size: (640, 480), rate: .fps(60)), from: webcam, current: (640, 480))) {
            XCTAssertTrue("\($0)".contains("does not offer 60 fps at 640x480; rates: 30, 15"), "\($0)")
        }
        let fps15 = try? CameraMode.choose(CameraRequest(size: (640, 480), rate: .fps(15)), from: webcam, current: (640, 480))
        XCTAssertEqual(fps15?.format, .yuyv)
    }

    func control(_ label: String, _ kind: CameraControl.Kind, _ range: ClosedRange<Int64>, step: Int64 = 1,
                 menu: [(Int64, String)] = [], readOnly: Bool = false) -> CameraControl {
        CameraControl(id: 1, label: label, name: CameraControl.normalizedName(label), kind: kind, minimum: range.lowerBound,
                      maximum: range.upperBound, step: step, defaultValue: range.lowerBound, value: nil,
                      menu: menu.map { (index: $0.0, name: $0.1) }, readOnly: readOnly, inactive: false)
    }

    func testCameraClassControls() throws {
        XCTAssertEqual(CameraControl.normalizedName("Focus, Automatic Continuous"), "focus_automatic_continuous")
        XCTAssertEqual(CameraControl.normalizedName("Zoom, Absolute"), "zoom_absolute")
        XCTAssertEqual(CameraControl.normalizedName("White Balance Temperature"), "white_balance_temperature")

        let focusAuto = control("Focus, Automatic Continuous", .boolean, 0...1)
        XCTAssertEqual(try focusAuto.parse("0"), 0)
        XCTAssertEqual(try focusAuto.parse("on"), 1)
        XCTAssertThrowsError(try focusAuto.parse("maybe"))

        let zoom = control("Zoom, Absolute", .integer, 100...500, step: 10)
        XCTAssertEqual(try zoom.parse("300"), 300)
        XCTAssertThrowsError(try zoom.parse("600")) { XCTAssertTrue("\($0)".contains("the range is 100...500 in steps of 10"), "\($0)") }
        XCTAssertThrowsError(try zoom.parse("305")) { XCTAssertTrue("\($0)".contains("step"), "\($0)") }

        let exposure = control("Auto Exposure", .menu, 0...3, menu: [(1, "Manual Mode"), (3, "Aperture Priority Mode")])
        XCTAssertEqual(try exposure.parse("manual_mode"), 1)
        XCTAssertEqual(try exposure.parse("3"), 3)
        XCTAssertThrowsError(try exposure.parse("2")) { XCTAssertTrue("\($0)".contains("1 (Manual Mode), 3 (Aperture Priority Mode)"), "\($0)") }

        let readOnly = control("Focus, Absolute", .integer, 0...250, readOnly: true)
        XCTAssertThrowsError(try readOnly.parse("10")) { XCTAssertTrue("\($0)".contains("read-only")) }
    }

    func testZoomSliderMapping() {
        let range = ZoomRange()
        XCTAssertEqual(range.maxFactor, 4)
        XCTAssertEqual(range.factor(slider: 0), 1)
        XCTAssertEqual(range.factor(slider: 0.5), 2, accuracy: 1e-9)
        XCTAssertEqual(range.factor(slider: 1), 4, accuracy: 1e-9)
        XCTAssertEqual(range.slider(factor: 2), 0.5, accuracy: 1e-9)
        XCTAssertEqual(ZoomRange(deviceMaximum: 10).maxFactor, 4, "capped at 4x")
        XCTAssertEqual(ZoomRange(deviceMaximum: 2).factor(slider: 1), 2, accuracy: 1e-9)
    }

    func testZoomRampDoublesPerSecondAtRateOneAndCancelStopsIt() {
        var ramp = ZoomRamp()
        ramp.ramp(to: 4, rate: 1, now: 10)
        XCTAssertEqual(ramp.factor(at: 10), 1)
        XCTAssertEqual(ramp.factor(at: 11), 2, accuracy: 1e-9)
        XCTAssertEqual(ramp.factor(at: 12), 4, accuracy: 1e-9)
        XCTAssertEqual(ramp.factor(at: 20), 4, "stops at the target")
        XCTAssertEqual(ZoomRamp.duration(from: 1, to: 4, rate: 1), 2, accuracy: 1e-9)
        ramp.ramp(to: 1, rate: 2, now: 20)
        XCTAssertEqual(ramp.factor(at: 20.5), 2, accuracy: 1e-9, "rate 2 halves twice a second going down")
        ramp.cancel(now: 20.5)
        XCTAssertFalse(ramp.isRamping(at: 30))
        XCTAssertEqual(ramp.factor(at: 30), 2, accuracy: 1e-9, "cancel keeps the value reached")
    }

    /// On the real clock: a ramp from 1x to 2x at rate 2 takes at least 0.5 s, and the
    /// controller applies it to the texture cache as digital zoom. The exact
    /// duration is ZoomRamp's, checked on a given clock above; here a frame
    /// may take long on a loaded machine, so only the lower bound is exact and
    /// the upper one catches a ramp that never ends.
    func testZoomControllerRampsInRealTime() throws {
        let pattern = TestPattern(width: 64, height: 48, format: .rgba)
        let (reached, factors) = try GPUHarness.run { context -> (Double, [Double]) in
            let renderer = try FrameRenderer(context: context, settings: RenderSettings())
            // The first frame compiles the shaders: not part of the ramp.
            _ = try renderer.render(pattern.frame(at: 0), index: 0)
            let zoom = ZoomController(source: pattern)
            var seen: [Double] = []
            zoom.onChange = { seen.append($0) }
            let start = MonotonicClock.seconds
            zoom.rampZoom(to: 2, rate: 2)
            while zoom.currentFactor < 2 && MonotonicClock.seconds - start < 60 {
                try zoom.apply(to: renderer)
                _ = try renderer.render(pattern.frame(at: 0), index: 0)
            }
            let elapsed = MonotonicClock.seconds - start
            try zoom.apply(to: renderer)
            XCTAssertEqual(renderer.uploader.zoom, 2)
            return (elapsed, seen)
        }
        XCTAssertGreaterThanOrEqual(reached, 0.5 - 1e-3, "a ramp at rate 2 from 1x to 2x takes half a second")
        XCTAssertLessThan(reached, 60, "the ramp never reached 2x")
        XCTAssertEqual(factors.last, 2, "the ramp ends at its target")
        XCTAssertEqual(factors, factors.sorted(), "the observed factor only grows")
    }
}
