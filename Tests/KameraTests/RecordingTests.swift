import Foundation
import GPU
import Output
import Pipeline
import XCTest

/// Video recordings (`-o NAME.mp4|.mkv|...`) and stills (`.jpg`, PNG
/// metadata, `kamera snap`), read back by independent tools: Debian's
/// ffprobe and ffmpeg decode the files, exiftool reads the EXIF.
final class RecordingTests: XCTestCase {
    var scratch: KameraProcess!

    override func setUpWithError() throws {
        scratch = try KameraProcess.scratch("recording")
    }

    override func tearDown() {
        scratch.remove()
    }

    private func sh(_ script: String) throws -> KameraProcess.Result {
        try KameraProcess.shell("K='\(KameraProcess.binary.path)'\n" + script, in: scratch.folder)
    }

    private func data(_ name: String) throws -> Data { try Data(contentsOf: scratch.folder.appendingPathComponent(name)) }

    /// `ffprobe`'s `key=value` lines for the first video stream and the format.
    private func probe(_ name: String) throws -> [String: String] {
        let result = try sh("ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=codec_name,width,height,pix_fmt,nb_read_frames,color_space,color_range:format=duration,format_name -of default=noprint_wrappers=1 \(name)")
        XCTAssertEqual(result.status, 0, result.stderr)
        var values: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    /// PSNR of `a` against `b`, over all bytes (8-bit samples).
    private func psnr(_ a: Data, _ b: Data) -> Double {
        precondition(a.count == b.count)
        var sum = 0.0
        a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                for i in 0..<x.count {
                    let d = Double(x[i]) - Double(y[i])
                    sum += d * d
                }
            }
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// 60 frames of the test pattern with sepia, in one run, to H.264 in MP4,
    /// FFV1 in Matroska and PNGs: both videos hold 60 frames of 720x720 over
    /// 2 s at 30 fps; FFV1 (RGB) decodes to exactly the PNGs' pixels; every
    /// H.264 frame is within 38 dB PSNR of its PNG (44 dB was seen).
    func testSixtyFramesToH264AndFFV1MatchThePNGRender() throws {
        let run = try sh("$K render --filter sepia --frames 60 -o clip.mp4 -o clip.mkv --codec ffv1 -o f-%02d.png")
        // --codec applies to every video output; FFV1 does not go in MP4.
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("ffv1 does not go in .mp4"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.folder.appendingPathComponent("clip.mkv").path))
        for script in ["$K render --filter sepia --frames 60 -o clip.mp4 -o f-%02d.png",
                       "$K render --filter sepia --frames 60 -o clip.mkv --codec ffv1"] {
            let result = try sh(script)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let h264 = try probe("clip.mp4"), ffv1 = try probe("clip.mkv")
        XCTAssertEqual(h264["codec_name"], "h264")
        XCTAssertEqual(ffv1["codec_name"], "ffv1")
        for info in [h264, ffv1] {
            XCTAssertEqual(info["width"], "720")
            XCTAssertEqual(info["height"], "720")
            XCTAssertEqual(info["nb_read_frames"], "60")
            XCTAssertEqual(Double(info["duration"] ?? "") ?? 0, 2.0, accuracy: 0.001)
        }
        XCTAssertEqual(h264["pix_fmt"], "yuv420p")
        XCTAssertEqual(h264["color_space"], "bt709")
        XCTAssertEqual(h264["color_range"], "tv")
        XCTAssertEqual(ffv1["pix_fmt"], "bgr0")
        let decode = try sh("""
            ffmpeg -v error -i clip.mkv -f rawvideo -pix_fmt rgb24 mkv.rgb && \
            ffmpeg -v error -i clip.mp4 -f rawvideo -pix_fmt rgb24 mp4.rgb && \
            ffmpeg -v error -framerate 30 -i f-%02d.png -f rawvideo -pix_fmt rgb24 png.rgb
            """)
        XCTAssertEqual(decode.status, 0, decode.stderr)
        let png = try data("png.rgb"), lossless = try data("mkv.rgb"), lossy = try data("mp4.rgb")
        let frame = 720 * 720 * 3
        XCTAssertEqual(png.count, 60 * frame)
        XCTAssertEqual(lossless.count, png.count)
        XCTAssertTrue(lossless == png, "FFV1 decodes to the rendered pixels exactly")
        XCTAssertEqual(lossy.count, png.count)
        guard lossy.count == png.count else { return }
        var worst = Double.infinity
        for n in 0..<60 {
            let range = (n * frame)..<((n + 1) * frame)
            worst = min(worst, psnr(lossy.subdata(in: range), png.subdata(in: range)))
        }
        print(String(format: "H.264 (libx264 veryfast, CRF 23) against the PNG render: worst frame %.1f dB PSNR", worst))
        XCTAssertGreaterThanOrEqual(worst, 38)
    }

    /// The two ways a picture reaches the encoder, side by side on the same
    /// frames: 4:2:0 made straight from the test pattern's YUYV with sepia on
    /// the way (every frame: an offline run draws none, its first neither), and the RGBA picture
    /// through swscale. Both within 38 dB PSNR of the PNG render of every frame,
    /// and within 1 dB of each other.
    func testBothPixelPathsMatchThePNGRender() throws {
        let result = try sh("""
            $K render --filter sepia --frames 20 -o f-%02d.png -o auto.mp4 &&             $K render --filter sepia --frames 20 -o rgba.mp4 --encoder-input rgba &&             ffmpeg -v error -framerate 30 -i f-%02d.png -f rawvideo -pix_fmt rgb24 png.rgb &&             ffmpeg -v error -i auto.mp4 -f rawvideo -pix_fmt rgb24 auto.rgb && ffmpeg -v error -i rgba.mp4 -f rawvideo -pix_fmt rgb24 rgba.rgb
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("auto.mp4: 20 frames, libx264 yuv420p, 720x720, fragmented MP4; 20 of the frames made 4:2:0 straight from the input's YUV, 20 handed to the encoder without a copy"), result.stderr)
        XCTAssertTrue(result.stderr.contains("rgba.mp4: 20 frames, libx264 yuv420p, 720x720, fragmented MP4\n"), result.stderr)
        let png = try data("png.rgb"), frame = 720 * 720 * 3
        XCTAssertEqual(png.count, 20 * frame)
        var worst: [String: Double] = [:]
        for name in ["auto", "rgba"] {
            let video = try data("\(name).rgb")
            XCTAssertEqual(video.count, png.count, name)
            guard video.count == png.count else { continue }
            worst[name] = (0..<20).map { n in
                let range = (n * frame)..<((n + 1) * frame)
                return psnr(video.subdata(in: range), png.subdata(in: range))
            }.min()
            XCTAssertGreaterThanOrEqual(worst[name] ?? 0, 38, name)
        }
        print(String(format: "H.264 against the PNG render, worst frame: 4:2:0 straight from YUYV %.2f dB, RGBA through swscale %.2f dB",
                     worst["auto"] ?? 0, worst["rgba"] ?? 0))
        XCTAssertEqual(worst["auto"] ?? 0, worst["rgba"] ?? 0, accuracy: 1)
    }

    /// Ctrl-C and SIGTERM mid-recording: every frame previewed is in each
    /// file, which has its trailer (MP4 fragments, Matroska's cues).
    func testStopSignalsFinishTheFile() throws {
        for signal in ["INT", "TERM"] {
            let result = try sh("""
                $K preview --filter sepia --size 320x240 --status-every 0.2 -o live.mp4 -o live.mkv 2> log.txt &
                P=$!
                for i in $(seq 600); do grep -q "rec [3-9][0-9]" log.txt 2>/dev/null && break; sleep 0.1; done
                kill -\(signal) $P; wait $P; echo "exit $?"
                cat log.txt
                """)
            let previewed = try XCTUnwrap(result.output.split(separator: "\n").first { $0.contains("previewed") }, result.output)
            let words = previewed.split(separator: " ")
            let frames = try XCTUnwrap(Int(words[words.firstIndex(of: "previewed")! + 1]))
            XCTAssertGreaterThanOrEqual(frames, 30, result.output)
            XCTAssertTrue(result.output.contains("live.mp4: \(frames) frames"), result.output)
            for name in ["live.mp4", "live.mkv"] {
                XCTAssertEqual(try probe(name)["nb_read_frames"], String(frames), "\(signal): \(name)")
            }
        }
    }

    /// `--faststart`: one plain MP4 (no fragments), its index before the media.
    func testFaststartWritesAPlainMP4WithItsIndexFirst() throws {
        let result = try sh("$K render --frames 10 --size 64x64 -o plain.mp4 --faststart")
        XCTAssertEqual(result.status, 0, result.stderr)
        let bytes = try data("plain.mp4")
        let moov = try XCTUnwrap(bytes.range(of: Data("moov".utf8))), mdat = try XCTUnwrap(bytes.range(of: Data("mdat".utf8)))
        XCTAssertLessThan(moov.lowerBound, mdat.lowerBound)
        XCTAssertNil(bytes.range(of: Data("moof".utf8)))
        XCTAssertEqual(try probe("plain.mp4")["nb_read_frames"], "10")
    }

    /// Other codecs and containers the libraries offer: each file is read back
    /// by ffprobe with its codec and every frame.
    func testCodecsAndContainers() throws {
        for (name, codec, expected) in [("a.webm", "", "vp9"), ("b.mkv", "hevc", "hevc"), ("c.mov", "mjpeg", "mjpeg"), ("d.mkv", "av1", "av1")] {
            let result = try sh("$K render --frames 6 --size 64x64 -o \(name)" + (codec.isEmpty ? "" : " --codec \(codec)"))
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            let info = try probe(name)
            XCTAssertEqual(info["codec_name"], expected, name)
            XCTAssertEqual(info["nb_read_frames"], "6", name)
        }
        let list = try sh("$K codecs && $K render --codec help")
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.output.contains("libx264"), list.output)
        XCTAssertTrue(list.output.contains("ffv1"), list.output)
    }

    /// Bad video and still options: one line naming what would work, exit 1,
    /// and no file left behind.
    func testBadRecordingInputs() throws {
        let cases: [(String, String)] = [
            ("-o x.mp4 --codec nosuch", "--codec nosuch is not a codec Kamera writes; use one of h264, hevc, vp9, av1, mjpeg, ffv1"),
            ("-o x.webm --codec h264", "h264 does not go in .webm; .webm holds vp9, av1"),
            ("-o x.mp4 --crf 99", "--crf 99 is out of range for h264; use 0 to 51"),
            ("-o x.mkv --codec ffv1 --crf 10", "--crf is for lossy codecs"),
            ("-o x.mp4 --size 101x101", "101x101 is odd"),
            ("-o nofolder/x.mp4", "the folder 'nofolder' does not exist"),
            ("-o x-%02d.mp4 --frames 2", "a video is one file; leave %d out"),
            ("-o x.mkv --faststart", "--faststart is for .mp4 and .mov"),
            ("-o x.png --codec h264", "--codec is for video outputs; add -o clip.mp4"),
            ("-o x.mp4 --bitrate lots", "use bits a second, such as 4M"),
            ("-o x.mp4 --gop 0s", "use a whole number of frames, such as 30, or seconds, such as 2s"),
            ("-o x.mp4 --gop 0", "--gop 0 is out of range; use 1 (every frame a key frame) to 10000 frames, or seconds such as 2s"),
            ("-o x.mp4 --gop 400s", "--gop 400s is out of range"),
            ("-o x.mp4 --drop sometimes", "--drop sometimes is not valid; use late or never"),
            ("-o x.mp4 --encoder-input nv12", "--encoder-input nv12 is not valid; use auto or rgba"),
            ("-o x.png --encoder-input rgba", "--encoder-input is for video outputs; add -o clip.mp4"),
            ("-o x.avi", "Kamera does not write .avi files"),
            ("-o x.jpg --quality 0", "--quality 0 is out of range; use 1 to 100"),
            ("-o x.jpg --quality 101", "--quality 101 is out of range; use 1 to 100"),
            ("-o x.jpg --jpeg-subsampling 422", "--jpeg-subsampling 422 is not valid; use 420 or 444"),
            ("-o x.jpg --frames 2", "names one file but 2 frames are rendered"),
            ("-o x.mp4 --size 8192x8192", "x.mp4: 8192x8192 is larger than Kamera records (at most 35651584 pixels a frame, such as 8192x4352, and 16384 a side"),
            ("-o x.mkv --codec ffv1 --size 6000x6000", "6000x6000 is larger than Kamera records"),
            ("-o x.mp4 --size 64x64 --codec h264_nvenc", "x.mp4: the h264_nvenc encoder found no device it can use (its GPU and driver): "),
        ]
        for (arguments, expected) in cases {
            let result = try sh("$K render \(arguments)")
            XCTAssertEqual(result.status, 1, arguments)
            XCTAssertTrue(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: scratch.folder.path)
            XCTAssertEqual(left, [], "\(arguments) left \(left)")
        }
    }

    /// FFV1 at sizes its encoder refused with "Function not implemented":
    /// 1x1 and 1x2 (one slice) and 4500x4500 (six slices, each within FFV1's
    /// bound on a slice's samples); each is read back at its size by ffprobe.
    /// An H.264 at the largest size recorded (8192x4352) has its frame.
    func testFFV1TakesEverySizeUpToTheLimit() throws {
        for size in ["1x1", "1x2", "4500x4500"] {
            let result = try sh("$K render -q --size \(size) -o v\(size).mkv --codec ffv1")
            XCTAssertEqual(result.status, 0, "\(size): \(result.stderr)")
            let read = try probe("v\(size).mkv")
            XCTAssertEqual("\(read["width"] ?? "")x\(read["height"] ?? "")", size)
            XCTAssertEqual(read["nb_read_frames"], "1", size)
        }
        let largest = try sh("$K render -q --size 8192x4352 -o largest.mp4")
        XCTAssertEqual(largest.status, 0, largest.stderr)
        XCTAssertEqual(try probe("largest.mp4")["nb_read_frames"], "1")
    }

    /// A JPEG still: its EXIF as exiftool reads it, and within 40 dB PSNR
    /// (48 dB seen at quality 92, 4:2:0) of the PNG of the same frame, which
    /// carries the same facts in tEXt and eXIf.
    func testJPEGAndPNGStillsCarryTheirMetadata() throws {
        let result = try sh("""
            $K render --filter sepia -o still.jpg -o still.png && \
            exiftool -j -G1 -a still.jpg > jpg.json && exiftool -j -G1 -a still.png > png.json && \
            ffmpeg -v error -i still.jpg -f rawvideo -pix_fmt rgb24 jpg.rgb && ffmpeg -v error -i still.png -f rawvideo -pix_fmt rgb24 png.rgb
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        func fields(_ name: String) throws -> [String: Any] {
            let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: try data(name)) as? [[String: Any]])
            return try XCTUnwrap(list.first)
        }
        let jpg = try fields("jpg.json"), png = try fields("png.json")
        for (tags, file) in [(jpg, "JPEG"), (png, "PNG")] {
            XCTAssertTrue((tags["IFD0:Software"] as? String)?.hasPrefix("Kamera 0.") == true, "\(file): \(tags)")
            XCTAssertEqual(tags["IFD0:Orientation"] as? String, "Horizontal (normal)", file)
            XCTAssertEqual(tags["IFD0:ImageDescription"] as? String, "test pattern 1280x720 yuyv", file)
            XCTAssertEqual(tags["ExifIFD:UserComment"] as? String, "Filters: sepia", file)
            XCTAssertEqual(tags["ExifIFD:ExifImageWidth"] as? Int, 720, file)
            XCTAssertEqual(tags["ExifIFD:ExifImageHeight"] as? Int, 720, file)
            let date = try XCTUnwrap(tags["ExifIFD:DateTimeOriginal"] as? String, file)
            XCTAssertNotNil(date.range(of: #"^\d{4}:\d\d:\d\d \d\d:\d\d:\d\d$"#, options: .regularExpression), date)
            XCTAssertNotNil(tags["ExifIFD:SubSecTimeOriginal"], file)
            XCTAssertNotNil((tags["ExifIFD:OffsetTimeOriginal"] as? String)?.range(of: #"^[+-]\d\d:\d\d$"#, options: .regularExpression), file)
        }
        XCTAssertEqual(png["PNG:Filters"] as? String, "sepia")
        XCTAssertEqual(png["PNG:Source"] as? String, "test pattern 1280x720 yuyv")
        XCTAssertTrue((png["PNG:Software"] as? String)?.hasPrefix("Kamera") == true)
        XCTAssertNotNil((png["PNG:CreationTime"] as? String)?.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\d[+-]\d\d:\d\d$"#, options: .regularExpression), "\(png)")
        let quality = psnr(try data("jpg.rgb"), try data("png.rgb"))
        print(String(format: "JPEG quality 92, 4:2:0 against the PNG: %.1f dB PSNR", quality))
        XCTAssertGreaterThanOrEqual(quality, 40)
        let full = try sh("$K render --filter sepia -o full.jpg --jpeg-subsampling 444 --quality 100 && exiftool -s3 -YCbCrSubSampling full.jpg")
        XCTAssertEqual(full.status, 0, full.stderr)
        XCTAssertTrue(full.output.contains("YCbCr4:4:4"), full.output)
    }

    /// `kamera snap` from a file (cameras are tested in the VM): a burst of
    /// numbered stills, and one PNG, each with its metadata.
    func testSnapTakesAStillAndABurst() throws {
        let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/Media")
        let result = try sh("""
            $K snap --frames 3 -o shot-%02d.jpg --input \(media.path)/clip.y4m && \
            $K snap -o one.png --input \(media.path)/photo.jpg --filter instant && exiftool -s3 -Filters one.png
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.output.trimmingCharacters(in: .whitespacesAndNewlines), "instant")
        for n in 0..<3 { XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.folder.appendingPathComponent("shot-0\(n).jpg").path)) }
        let wrong = try sh("$K snap -o clip.mp4 --input \(media.path)/photo.jpg; $K snap --input \(media.path)/photo.jpg")
        XCTAssertTrue(wrong.stderr.contains("snap writes stills; use NAME.jpg or NAME.png"), wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("snap needs -o"), wrong.stderr)
    }

    /// The preview's s key saves numbered JPEGs with EXIF, never over a file already there.
    /// A preview reading its keys from the FIFO `keys` (the script writes them to descriptor 3), going once its status line shows.
    static let previewWithKeys = """
        mkfifo keys
        $K preview --size 64x64 --status-every 0.2 < keys 2> log.txt &
        P=$!
        exec 3> keys
        for i in $(seq 600); do grep -q fps log.txt && break; sleep 0.1; done

        """

    func testSnapshotKeySavesNumberedJPEGs() throws {
        try Data("keep".utf8).write(to: scratch.folder.appendingPathComponent("kamera-snapshot-0001.jpg"))
        let result = try sh(Self.previewWithKeys + """
            printf s >&3
            for i in $(seq 600); do grep -q "saved kamera-snapshot-0002.jpg" log.txt && break; sleep 0.1; done
            printf s >&3
            for i in $(seq 600); do grep -q "saved kamera-snapshot-0003.jpg" log.txt && break; sleep 0.1; done
            printf q >&3; wait $P; echo "exit $?"
            exiftool -s3 -UserComment kamera-snapshot-0003.jpg
            """)
        XCTAssertTrue(result.output.contains("exit 0"), result.output + result.stderr)
        XCTAssertTrue(result.output.contains("Filters: none"), result.output)
        XCTAssertEqual(try String(contentsOf: scratch.folder.appendingPathComponent("kamera-snapshot-0001.jpg"), encoding: .utf8), "keep")
        for n in [2, 3] {
            let bytes = try data("kamera-snapshot-000\(n).jpg")
            XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xD8])
        }
    }

    /// `--gop`: key frames every N frames, or every N seconds (`2s`) at the
    /// run's rate, exactly there; one a second by default (bad values: `testBadRecordingInputs`).
    func testKeyFramesAreGOPApart() throws {
        for (option, expected) in [([] as [String], [0, 30, 60, 90]), (["--gop", "2s"], [0, 60]), (["--gop", "45"], [0, 45, 90])] {
            let made = try sh("$K render --frames 120 --size 64x64 -o gop.mp4 \(option.joined(separator: " "))")
            XCTAssertEqual(made.status, 0, made.stderr)
            let keys = try sh("ffprobe -v error -select_streams v -show_entries frame=key_frame -of csv=p=0 gop.mp4")
            let flags = keys.output.split(separator: "\n").map { $0.hasPrefix("1") }
            XCTAssertEqual(flags.count, 120, keys.output)
            XCTAssertEqual(flags.indices.filter { flags[$0] }, expected, "key frames with \(option)")
        }
    }

    /// The r key starts a recording into the next free numbered name and stops
    /// it; q ends the run and finishes the one being made.
    func testRecordKeyStartsAndStopsNumberedRecordings() throws {
        try Data("keep".utf8).write(to: scratch.folder.appendingPathComponent("kamera-recording-0001.mp4"))
        let result = try sh(Self.previewWithKeys + """
            printf r >&3
            for i in $(seq 600); do tr '\\r' '\\n' < log.txt | grep -q "rec [1-9][0-9] to kamera-recording-0002.mp4" && break; sleep 0.1; done
            printf r >&3
            for i in $(seq 600); do grep -q "kamera-recording-0002.mp4: " log.txt && break; sleep 0.1; done
            printf r >&3
            for i in $(seq 600); do grep -q "recording kamera-recording-0003.mp4" log.txt && break; sleep 0.1; done
            sleep 0.5
            printf q >&3; wait $P; echo "exit $?"
            for n in 2 3; do ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 kamera-recording-000$n.mp4; done
            """)
        XCTAssertTrue(result.output.contains("exit 0"), result.output + result.stderr)
        XCTAssertEqual(try String(contentsOf: scratch.folder.appendingPathComponent("kamera-recording-0001.mp4"), encoding: .utf8), "keep")
        let counts = result.output.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        XCTAssertEqual(counts.count, 2, result.output)
        XCTAssertGreaterThanOrEqual(counts.first ?? 0, 10, "frames recorded between the two r's: \(result.output)")
        XCTAssertGreaterThanOrEqual(counts.last ?? 0, 1, "the recording q ended was finished: \(result.output)")
    }

    /// A preset the encoder does not have is refused before the encoder is
    /// opened, in one line that names the presets it has (x264 printed a
    /// line of its own, then "Invalid argument").
    func testAPresetTheEncoderLacksIsOneLineNamingItsPresets() throws {
        for (codec, expected) in [("h264", "--preset nonsense is not a preset of libx264; use ultrafast, superfast"),
                                  ("ffv1", "--preset nonsense is not used by ffv1; ffv1 has no presets")] {
            let result = try sh("$K render --frames 2 --size 64x64 --codec \(codec) --preset nonsense -o p.mkv")
            XCTAssertEqual(result.status, 1, result.stderr)
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("kamera: error: \(expected)"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.folder.appendingPathComponent("p.mkv").path))
    }

    /// Stamped as a camera is (90 kHz from each frame's timestamp, first at 0;
    /// here the test pattern's timestamps, exact at 30 fps): both containers
    /// put frame N at N/30 s, the MP4 too (no B-frames there, whose delay a
    /// fragmented MP4 would show as a late start). `--drop never`: a live
    /// run drops a frame its encoder is not ready for (the camera keeps its
    /// pace), and on a loaded machine one of the 20 was (the encoder starting).
    func testLiveStampsStartAtZeroInEveryContainer() throws {
        var description = RunDescription()
        description.source.inputSize = (64, 64)
        description.settings.outputSize = (64, 64)
        description.frames = 20
        description.stampsFromSource = true
        description.output.video.drop = .never
        let files = ["l.mp4", "l.mkv"].map { scratch.folder.appendingPathComponent($0).path }
        description.outputs = try files.map { try OutputRequest(parsing: $0) }
        let builder = try RunBuilder(description)
        try RenderThread(name: "kamera.tests.stamps").sync {
            let run = try builder.build()
            try run.loop.run(frames: 20)
        }
        for file in files {
            let result = try sh("ffprobe -v error -show_entries frame=pts_time -of csv=p=0 \(file) | cut -d, -f1 | tr '\\n' ' '")
            let times = result.output.split(separator: " ").compactMap { Double($0) }
            XCTAssertEqual(times.count, 20, "\(file): \(result.output) \(result.stderr)")
            for (n, t) in times.enumerated() { XCTAssertEqual(t, Double(n) / 30, accuracy: 0.0006, "\(file) frame \(n)") }
        }
    }
}
