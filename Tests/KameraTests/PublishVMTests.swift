import Foundation
import XCTest

/// Publishing with sound, in the VM: the vivid camera and a 1 kHz tone on
/// snd-aloop published over RTMP to nginx; what nginx received (its
/// recorder) holds H.264 and AAC, as long as each other, and the tone.
final class PublishVMTests: XCTestCase {
    static let script = """
    K="$KAMERA"
    modprobe snd-aloop
    # nginx with its RTMP module, as a user runs it, keeping what it receives (record all).
    mkdir -p nginx/rec
    cat > nginx/nginx.conf <<EOF
    load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
    daemon off; master_process off; pid $PWD/nginx/nginx.pid; error_log $PWD/nginx/error.log;
    events {}
    rtmp { server { listen 127.0.0.1:19350; application live { live on; record all; record_path $PWD/nginx/rec; } } }
    EOF
    nginx -c $PWD/nginx/nginx.conf -p $PWD/nginx -e $PWD/nginx/error.log & N=$!
    # A 1 kHz tone (amplitude 1/8), made beforehand, into the loopback's playback side for the whole run;
    # 16 kHz mono: FFmpeg's AAC encoder, emulated here, is slower than the sound at 48 kHz in stereo.
    ffmpeg -v error -f lavfi -i "sine=frequency=1000:sample_rate=16000" -t 40 -ac 1 tone.wav
    aplay -q -D hw:Loopback,0,0 tone.wav & A=$!
    sleep 1
    $K preview --camera /dev/video0 --input-size 320x180 --fps 30 --size 160x160 --duration 10 \\
      --audio hw:Loopback,1,0 --audio-rate 16000 --audio-channels 1 -o rtmp://127.0.0.1:19350/live/cam 2> pub.log; echo $? > pub.rc
    sleep 1
    kill $A $N 2>/dev/null; wait $A $N 2>/dev/null
    cp nginx/rec/cam.flv got.flv
    ffprobe -v error -show_entries stream=codec_type,codec_name,sample_rate,channels -of csv=p=0 got.flv > streams.txt 2>&1
    ffprobe -v error -select_streams v:0 -show_entries frame=pts_time -of csv=p=0 got.flv > video.txt 2>&1
    ffmpeg -v error -i got.flv -map 0:a -f s16le -ar 16000 got.raw 2> decode.log
    """

    static let steps = [VMStep("publish-sound", owner: "\(PublishVMTests.self)", script: script)]

    func testTheSoundIsPublishedWithThePicture() throws {
        let run = VMBoot.cameras.run("publish-sound")
        let folder = try run.checkedFolder()
        func text(_ name: String) -> String { (try? ServeVMTests.line(name, of: run)) ?? "" }
        let log = text("pub.log")
        XCTAssertEqual(text("pub.rc"), "0", log)
        XCTAssertTrue(log.contains("publishing 160x160 H.264 with AAC sound to rtmp://127.0.0.1:19350/live/cam"), log)
        XCTAssertTrue(log.contains("frames published") && log.contains("; sound "), log)
        let streams = text("streams.txt")
        XCTAssertTrue(streams.contains("h264,video"), streams)
        XCTAssertTrue(streams.contains("aac,audio,16000,1"), "AAC at 16 kHz in mono: \(streams)")

        // The picture's span and the sound's: as long as each other, within half a second.
        let times = text("video.txt").split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }
        let first = try XCTUnwrap(times.first, "video frames: \(text("video.txt"))"), last = try XCTUnwrap(times.last)
        // The emulated VM's CPUs are shared by the preview, x264 and AAC: frames the publisher has no time for are dropped (counted).
        XCTAssertGreaterThanOrEqual(times.count, 30, "frames received in 10 s: \(log)")
        let video = last - first + 1.0 / 30
        let raw = try Data(contentsOf: folder.appendingPathComponent("got.raw"))
        let samples = raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let sound = Double(samples.count) / 16000
        XCTAssertEqual(sound, video, accuracy: 0.5, "seconds of sound and of picture: \(log)")

        // The tone, over a second two thirds in (the start may be silence: sound waits for the connection): its level (amplitude 4096, RMS 2896; AAC at 64 kb/s a channel
        // keeps it within 20%), and its pitch from the zero crossings (1000 Hz within 2%).
        let middle = samples.count * 2 / 3
        let window = Array(samples[max(0, middle - 8000)..<min(samples.count, middle + 8000)])
        XCTAssertEqual(window.count, 16000, "a second of sound two thirds in: \(sound) s")
        let rms = (window.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, window.count))).squareRoot()
        XCTAssertEqual(rms, 2896, accuracy: 580, "the tone's level")
        let crossings = zip(window, window.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        XCTAssertEqual(Double(crossings) / 2, 1000, accuracy: 20, "the tone's pitch (Hz)")
    }
}
