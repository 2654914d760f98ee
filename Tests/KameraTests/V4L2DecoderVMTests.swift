import Capture
import Foundation
import XCTest

/// A camera whose frames a V4L2 memory-to-memory decoder decodes: the
/// kernel's virtual codec vicodec (built with v4l2-mem2mem by
/// scripts/vm/codec-modules.sh: Debian's kernel has neither) decodes FWHT,
/// which a v4l2loopback camera streams (built with FWHT in its formats),
/// fed in turn two frames that vicodec's own encoder made from two stills.
/// Kamera finds the decoder itself, through the single-planar API and then
/// the multi-planar one (vicodec `multiplanar=1`). Each decoded frame equals
/// v4l2-ctl's decoding of one of the two through vicodec, byte for byte; the
/// render lands within a stated PSNR of its still. Five frames, as in the other
/// loopback tests: with PNG files as the output, a v4l2loopback camera has
/// stopped giving frames after the fifth (MJPEG too). vicodec
/// at 640x480 pads no row and gives one-plane NV12, so padded rows, two-plane
/// NM12 and a change of stream mid-way are not exercised here. The VM must boot and the
/// modules must build; if either fails, the test fails.
final class V4L2DecoderVMTests: XCTestCase {
    /// `modules.env` (written on the host before the boot) says where the built modules are: `M=FOLDER`.
    static var script: String {
        """
        . ./modules.env
        modprobe videobuf2-vmalloc
        insmod $M/v4l2-mem2mem.ko && insmod $M/vicodec.ko \\
          && insmod $M/v4l2loopback.ko exclusive_caps=1 video_nr=10 card_label="Loopback FWHT" || exit 1
        # vicodec's three nodes: the encoder captures FWHT, the stateful decoder takes it in.
        codec() { for d in /dev/video*; do [ $d != /dev/video10 ] && v4l2-ctl -d $d $1 2>/dev/null | grep -q "'FWHT'" && echo $d; done; true; }
        ENC=$(codec --list-formats); DEC=$(codec --list-formats-out)
        echo "$ENC $DEC" > nodes.txt
        # Two pictures (testsrc2's frames 0 and 15 differ in their clock, counter and moving parts), each
        # encoded alone (a key frame); the camera streams them in turn.
        for i in 0 1; do
          ffmpeg -nostdin -loglevel error -f lavfi -i testsrc2=size=640x480:rate=30 -vf "select=eq(n\\,$((i * 15)))" -frames:v 1 -update 1 source-$i.png
          # BT.709 limited, as the encoder is told: the FWHT header carries it and the decoder says it again.
          ffmpeg -nostdin -loglevel error -i source-$i.png -vf scale=out_color_matrix=bt709:out_range=tv -pix_fmt yuv420p -f rawvideo source-$i.yuv
          timeout 60 v4l2-ctl -d $ENC --set-fmt-video-out=width=640,height=480,pixelformat=YU12,colorspace=rec709,ycbcr=709,quantization=lim-range \\
            --stream-out-mmap --stream-mmap --stream-from source-$i.yuv --stream-to frame-$i.fwht --stream-count 1 > encode-$i.log 2>&1
          timeout 60 v4l2-ctl -d $DEC --set-fmt-video=pixelformat=NV12 --stream-out-mmap --stream-mmap --stream-from frame-$i.fwht \\
            --stream-to reference-$i.nv12 --stream-count 1 > reference-$i.log 2>&1
        done
        """ + VMScriptRun.loopbackCamera(feed: "$M/loopback-feed /dev/video10 FWHT 640 480 30 frame-0.fwht frame-1.fwht", then: """
        K="timeout -k 10 300 $KAMERA"
        $K devices --formats /dev/video10 > formats.txt
        run() { $K render -v --camera /dev/video10 --format fwht --frames 5 --crop none --save-input $1.raw -o $1-%d.png 2> $1.log; echo $? > $1.rc; }
        run single
        $K render --camera /dev/video10 --format fwht --decoder cpu --frames 1 -o none.png 2> cpu.log; echo $? > cpu.rc
        $K render --camera /dev/video10 --decoder /dev/video10 --frames 1 -o none.png 2> path.log; echo $? > path.rc
        rmmod vicodec && insmod $M/vicodec.ko multiplanar=1 || exit 1
        v4l2-ctl -d $DEC -D > multi-caps.txt
        run multi
        """)
    }

    /// The modules are built on the host first (scripts/vm/codec-modules.sh prints their folder);
    /// if they cannot be, the step fails with the build's log.
    static let steps = [VMStep("v4l2-decoder", owner: "\(V4L2DecoderVMTests.self)", script: script, vivid: "n_devs=1 node_types=0x1") { folder in
        let build = try KameraProcess.shell("bash '\(ExamplesTests.repository.appendingPathComponent("scripts/vm/codec-modules.sh").path)'", in: folder)
        guard build.status == 0 else { throw CaptureError("scripts/vm/codec-modules.sh failed:\n\(build.stderr.suffix(3000))") }
        try "M=\(build.output.trimmingCharacters(in: .whitespacesAndNewlines))\n".write(to: folder.appendingPathComponent("modules.env"), atomically: true, encoding: .utf8)
    }]

    static var run: VMScriptRun!

    override class func setUp() {
        run = VMBoot.loopback.run("v4l2-decoder")
    }

    override class func tearDown() { run.remove() }

    /// The raw NV12 frames Kamera saved, each compared with vicodec's own
    /// decoding (through v4l2-ctl) of one of the two pictures.
    func checkFrames(_ name: String, api: String) throws {
        let (folder, text, image) = (try Self.run.checkedFolder(), Self.run.text, Self.run.image)
        let log = try text("\(name).log")
        XCTAssertEqual(try text("\(name).rc").trimmingCharacters(in: .whitespacesAndNewlines), "0", log)
        let decoder = try text("nodes.txt").split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
        XCTAssertTrue(log.contains("/dev/video10 640x480 FWHT") && log.contains("decoded by \(decoder) (vicodec)"), log)
        let size = 640 * 480 * 3 / 2
        var references: [Data] = []
        for i in 0..<2 {
            let reference = try Data(contentsOf: folder.appendingPathComponent("reference-\(i).nv12"))
            let referenceLog = try text("reference-\(i).log")
            XCTAssertEqual(reference.count, size, "v4l2-ctl's decoding of picture \(i): \(referenceLog)")
            references.append(reference)
        }
        XCTAssertNotEqual(references[0], references[1], "the two pictures differ")
        let saved = try Data(contentsOf: folder.appendingPathComponent("\(name).raw"))
        XCTAssertEqual(saved.count, 5 * size, "five decoded frames saved")
        var seen = Set<Int>()
        for i in 0..<saved.count / size {
            let frame = saved[saved.startIndex + i * size ..< saved.startIndex + (i + 1) * size]
            let differing = references.map { reference in zip(frame, reference).filter { $0 != $1 }.count }
            guard let match = differing.firstIndex(of: 0) else {
                XCTFail("\(api): frame \(i) is neither picture as vicodec decodes it (\(differing[0]) and \(differing[1]) bytes differ)")
                continue
            }
            seen.insert(match)
        }
        // Which of the two come out depends on the frames dropped late, so both need not.
        print("V4L2 decoder (\(api)): the saved frames are of pictures \(seen.sorted())")
        let last = Self.picture(saved, references, frame: 4)
        let measured = H264VMTests.psnr(try image("\(name)-4.png"), try image("source-\(last).png"))
        print(String(format: "V4L2 decoder (%@): Kamera's render against the source picture: PSNR %.2f dB", api, measured))
        // 33.6 and 34.1 dB measured (the two pictures): FWHT at vicodec's default quantiser (20), and 4:2:0 on testsrc2's sharp colored edges.
        // Read as BT.601 (the camera's default) instead of the stream's BT.709, green alone falls to 19 dB.
        XCTAssertGreaterThan(measured, 31, "PSNR of the decoded, converted frame against the source picture")
    }

    /// Which of the two pictures saved frame `frame` is.
    static func picture(_ saved: Data, _ references: [Data], frame: Int) -> Int {
        let size = references[0].count
        let slice = saved[saved.startIndex + frame * size ..< saved.startIndex + (frame + 1) * size]
        return slice.elementsEqual(references[1]) ? 1 : 0
    }

    func testSinglePlanarDecoderDecodesTheCamerasFrames() throws {
        let formats = try Self.run.text("formats.txt")
        XCTAssertTrue(formats.contains("FWHT") && formats.contains("decoded to nv12 by /dev/video") && formats.contains("(vicodec)"), formats)
        try checkFrames("single", api: "single-planar")
    }

    func testMultiPlanarDecoderDecodesTheCamerasFrames() throws {
        let caps = try Self.run.text("multi-caps.txt")
        XCTAssertTrue(caps.contains("Video Memory-to-Memory Multiplanar"), "vicodec multiplanar=1 offers only the multi-planar API: \(caps)")
        try checkFrames("multi", api: "multi-planar")
    }

    func testDecoderChoicesThatCannotWorkSayWhy() throws {
        let text = Self.run.text
        XCTAssertEqual(try text("cpu.rc").trimmingCharacters(in: .whitespacesAndNewlines), "1")
        let cpu = try text("cpu.log")
        XCTAssertTrue(cpu.contains("fwht frames need a V4L2 decoder"), cpu)
        XCTAssertEqual(try text("path.rc").trimmingCharacters(in: .whitespacesAndNewlines), "1")
        let path = try text("path.log")
        XCTAssertTrue(path.contains("--decoder /dev/video10 is not a V4L2 decoder of FWHT") && path.contains("(vicodec) does"), path)
        XCTAssertEqual(path.split(separator: "\n").count, 1, path)
    }
}
