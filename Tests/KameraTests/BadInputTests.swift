import Foundation
import XCTest

/// Bad input of every kind, run through the `kamera` binary: each case must
/// end with exit status 1, one line on stderr that names the problem and what
/// would work, no control characters echoed, nothing on stdout and the folder
/// left exactly as it was (no output, no temporary file).
final class BadInputTests: KameraProcessTestCase {
    struct Case {
        var arguments: [String]
        var expect: [String]
        var files: [String: [UInt8]] = [:]
        var folders: [String] = []
    }

    static func y4m(_ header: String, frames: Int = 0, frameBytes: Int = 0, tail: [UInt8] = []) -> [UInt8] {
        var bytes = Array((header + "\n").utf8)
        for _ in 0..<frames { bytes += Array("FRAME\n".utf8) + [UInt8](repeating: 128, count: frameBytes) }
        return bytes + tail
    }

    static func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }

    static func chunk(_ type: String, _ data: [UInt8], length: UInt32? = nil) -> [UInt8] {
        let body = Array(type.utf8) + data
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return be(length ?? UInt32(data.count)) + body + be(~crc)
    }

    /// A PNG whose IHDR claims `width` x `height` RGBA, with a few bytes of
    /// image data, and `extra` chunks before them.
    static func pngHeader(width: UInt32, height: UInt32, extra: [UInt8] = []) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be(width) + be(height) + [8, 6, 0, 0, 0])
            + extra + chunk("IDAT", [0x78, 0x9C, 0x63, 0, 0, 0, 1, 0, 1]) + chunk("IEND", [])
    }

    static let cases: [Case] = [
        // Inputs that are missing, folders or damaged.
        Case(arguments: ["--input", "missing.png"], expect: ["missing.png", "no such file"]),
        // Foundation's pathExtension trapped on this name (found by FuzzOutputPattern).
        Case(arguments: ["--input", "//\u{FFFD}"], expect: ["no such file"]),
        Case(arguments: ["-o", "out.gif"], expect: ["-o out.gif", "does not write .gif", "NAME.png", "NAME.jpg", "NAME.y4m", "NAME.mp4|.mov|.mkv|.webm", "kms"]),
        Case(arguments: ["-o", "clip.avi"], expect: ["-o - --stream y4m | ffmpeg -i - clip.avi"]),
        Case(arguments: ["--input", "corrupt.png"], expect: ["corrupt.png", "neither a PNG nor a JPEG picture", "give a .png or .jpg image"],
             files: ["corrupt.png": [0x89, 0x50, 0x4E, 0x47, 1, 2, 3]]),
        Case(arguments: ["--input", "random.jpg"], expect: ["random.jpg", "neither a PNG nor a JPEG picture", "give a .png or .jpg image"],
             files: ["random.jpg": [0x37, 0xD8, 0xFF, 0x00, 0x12, 0x99, 0x41, 0x07, 0x00, 0xC4]]),
        Case(arguments: ["--input", "cut.y4m"], expect: ["cut.y4m", "the YUV4MPEG2 header is cut off: the file ends before its newline"],
             files: ["cut.y4m": Array("YUV4MPEG2 W640 H480 F25:1 Ip A1:1 C420jp".utf8)]),
        Case(arguments: ["--input", "dir"], expect: ["dir", "is a folder", ".png, .jpg/.jpeg and .y4m"], folders: ["dir"]),
        Case(arguments: ["--input", "x.png"], expect: ["x.png", "is a folder"], folders: ["x.png"]),
        Case(arguments: ["--input", "huge.png"], expect: ["huge.png", "100000x100000", "too large", "16384"],
             files: ["huge.png": pngHeader(width: 100_000, height: 100_000)]),
        Case(arguments: ["--input", "wide.png"], expect: ["wide.png", "20000x1", "too large"],
             files: ["wide.png": pngHeader(width: 20000, height: 1)]),
        Case(arguments: ["--input", "text.png"], expect: ["text.png", "chunk 'tEXt'", "declares 2147483647 bytes", "left in the file"],
             files: ["text.png": pngHeader(width: 16, height: 8, extra: chunk("tEXt", Array("Comment\0x".utf8), length: 0x7FFF_FFFF))]),
        Case(arguments: ["--input", "zero.png"], expect: ["zero.png", "0x8 image"], files: ["zero.png": pngHeader(width: 0, height: 8)]),
        Case(arguments: ["--input", "claims.png"], expect: ["claims.png", "8191x8191", "needs at least"],
             files: ["claims.png": pngHeader(width: 8191, height: 8191)]),
        Case(arguments: ["--input", "raw.yuv"], expect: ["--format", "--input-size"], files: ["raw.yuv": [1, 2, 3]]),
        Case(arguments: ["--input", "clip.y4m", "--format", "yuyv"], expect: ["--format is for raw input", "clip.y4m gives its own"],
             files: ["clip.y4m": y4m("YUV4MPEG2 W4 H2", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "", "-o", "x.png"], expect: ["--input is empty"]),
        Case(arguments: ["--camera", ""], expect: ["--camera is empty", "/dev/video0"]),
        Case(arguments: ["--input", "raw.yuv", "--format", "yuyv", "--input-size", "64x48"], expect: ["raw.yuv", "less than one 64x48 yuyv frame"],
             files: ["raw.yuv": [1, 2, 3]]),
        // YUV4MPEG2 headers and frames.
        Case(arguments: ["--input", "short.y4m"], expect: ["short.y4m", "frame 0 is truncated"],
             files: ["short.y4m": y4m("YUV4MPEG2 W64 H48 C420jpeg", tail: Array("FRAME\n".utf8) + [UInt8](repeating: 0, count: 100))]),
        Case(arguments: ["--input", "f0.y4m"], expect: ["f0.y4m", "F0:1", "not valid", "F30:1"], files: ["f0.y4m": y4m("YUV4MPEG2 W4 H2 F0:1", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "fnan.y4m"], expect: ["Fnan:1", "not valid"], files: ["fnan.y4m": y4m("YUV4MPEG2 W4 H2 Fnan:1", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "fneg0.y4m"], expect: ["F-0:1", "not valid"], files: ["fneg0.y4m": y4m("YUV4MPEG2 W4 H2 F-0:1", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "fneg.y4m"], expect: ["F-30:1", "not valid"], files: ["fneg.y4m": y4m("YUV4MPEG2 W4 H2 F-30:1", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "ftiny.y4m"], expect: ["F1e-300:1", "not valid"], files: ["ftiny.y4m": y4m("YUV4MPEG2 W4 H2 F1e-300:1", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "finf.y4m"], expect: ["Finf:1", "not valid"], files: ["finf.y4m": y4m("YUV4MPEG2 W4 H2 Finf:1", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "fast.y4m"], expect: ["F100000:1", "1000 frames per second"], files: ["fast.y4m": y4m("YUV4MPEG2 W4 H2 F100000:1", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "w62.y4m"], expect: ["W4611686018427387904", "not a size", "16384"],
             files: ["w62.y4m": y4m("YUV4MPEG2 W4611686018427387904 H2", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "big.y4m"], expect: ["big.y4m", "60000x60000", "too large"],
             files: ["big.y4m": y4m("YUV4MPEG2 W60000 H60000 F30:1 C420jpeg", tail: Array("FRAME\n".utf8) + [UInt8](repeating: 1, count: 100))]),
        Case(arguments: ["--input", "tall.y4m"], expect: ["tall.y4m", "frame 0 is truncated"],
             files: ["tall.y4m": y4m("YUV4MPEG2 W8192 H8192 F30:1 C420jpeg", tail: Array("FRAME\n".utf8) + [UInt8](repeating: 1, count: 100))]),
        Case(arguments: ["--input", "empty.y4m"], expect: ["empty.y4m", "holds no frames"], files: ["empty.y4m": y4m("YUV4MPEG2 W4 H2 F30:1")]),
        Case(arguments: ["--input", "c444.y4m"], expect: ["C444", "C420jpeg", "C422"], files: ["c444.y4m": y4m("YUV4MPEG2 W4 H2 C444", frames: 1, frameBytes: 24)]),
        Case(arguments: ["--input", "now.y4m"], expect: ["no W (width)"], files: ["now.y4m": y4m("YUV4MPEG2 H2", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "not.y4m"], expect: ["not a YUV4MPEG2 file"], files: ["not.y4m": Array("RIFF....\n".utf8)]),
        Case(arguments: ["--input", "esc.y4m"], expect: ["\\u{1B}[2J", "\\u{D}", "is not supported"],
             files: ["esc.y4m": y4m("YUV4MPEG2 W4 H2 C\u{1B}[2J\r", frames: 1, frameBytes: 12)]),
        Case(arguments: ["--input", "damaged.y4m", "--frames", "3", "-o", "f-%d.png"], expect: ["frame 1 does not start with a FRAME line", "--frames 1"],
             files: ["damaged.y4m": y4m("YUV4MPEG2 W4 H2", frames: 1, frameBytes: 12, tail: Array("JUNK\n".utf8) + [UInt8](repeating: 0, count: 12))]),
        Case(arguments: ["--input", "cut.y4m", "--frames", "5", "-o", "f-%d.png"], expect: ["frame 3 is truncated", "--frames 3 or fewer"],
             files: ["cut.y4m": y4m("YUV4MPEG2 W4 H2", frames: 3, frameBytes: 12, tail: Array("FRAME\n".utf8) + [0, 0, 0])]),
        // Filters.
        Case(arguments: ["--filter", "sepiaa"], expect: ["sepiaa", "sepia", "mono", "invert", "contrast=V"]),
        Case(arguments: ["--filter", ""], expect: ["needs a name", "sepia"]),
        Case(arguments: ["--filter", " "], expect: ["needs a name", "sepia"]),
        Case(arguments: ["--filter", "="], expect: ["needs a name", "sepia"]),
        Case(arguments: ["--filter", "matrix=nan,0,0,0,1,0,0,0,1"], expect: ["matrix=nan", "finite"]),
        Case(arguments: ["--filter", "matrix=inf,0,0,0,1,0,0,0,1"], expect: ["matrix=inf", "finite"]),
        Case(arguments: ["--filter", "matrix=1e39,0,0,0,1,0,0,0,1"], expect: ["finite"]),
        Case(arguments: ["--filter", "matrix=1,2,3,4,5"], expect: ["9, 12, 16 or 20"]),
        Case(arguments: ["--filter", "matrix=bad.json"], expect: ["bad.json", "\"matrix\""], files: ["bad.json": Array("{\"matrix\": 3}".utf8)]),
        Case(arguments: ["--filter", "matrix=1e30,0,0,0,1e30,0,0,0,1e30", "--filter", "matrix=1e30,0,0,0,1e30,0,0,0,1e30"], expect: ["beyond a float's range"]),
        // Matrix JSON a parser takes quietly or answers only with "invalid".
        Case(arguments: ["--filter", "matrix=nan.json"], expect: ["nan.json", "NaN and Infinity are not JSON numbers"],
             files: ["nan.json": Array("{\"matrix\": [NaN,0,0,0,1,0,0,0,1]}".utf8)]),
        Case(arguments: ["--filter", "matrix=inf.json"], expect: ["inf.json", "NaN and Infinity"],
             files: ["inf.json": Array("{\"matrix\": [-Infinity,0,0,0,1,0,0,0,1]}".utf8)]),
        Case(arguments: ["--filter", "matrix=huge.json"], expect: ["huge.json", "the number 1e400 is beyond"],
             files: ["huge.json": Array("{\"matrix\": [1e400,0,0,0,1,0,0,0,1]}".utf8)]),
        Case(arguments: ["--filter", "matrix=deep.json"], expect: ["deep.json", "nested 5 deep"],
             files: ["deep.json": Array(("{\"matrix\": " + String(repeating: "[", count: 4000) + String(repeating: "]", count: 4000) + "}").utf8)]),
        Case(arguments: ["--filter", "matrix=twice.json"], expect: ["twice.json", "the key \"matrix\" is given twice"],
             files: ["twice.json": Array("{\"matrix\": [1,0,0,0,1,0,0,0,1], \"matrix\": [0,0,0,0,0,0,0,0,0]}".utf8)]),
        Case(arguments: ["--intensity", "0.5"], expect: ["--intensity", "add one, such as --filter sepia"]),
        Case(arguments: ["--intensity", "0.5", "--filter", "blur=3"], expect: ["--intensity", "none is given"]),
        Case(arguments: ["shader", "itime.frag"], expect: ["itime.frag", "uniform int iTime", "is a float"],
             files: ["itime.frag": Array("uniform int iTime;\nvoid mainImage(out vec4 o, in vec2 p) { o = vec4(float(iTime)); }\n".utf8)]),
        Case(arguments: ["--input", "inflating.png"], expect: ["inflating.png", "more than a 4x4 image can take"],
             files: ["inflating.png": [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be(4) + be(4) + [8, 6, 0, 0, 0])
                        + chunk("IDAT", [UInt8](repeating: 0, count: 200_000)) + chunk("IEND", [])]),
        Case(arguments: ["--filter", "matrix=ragged.json"], expect: ["ragged.json", "3 rows of 3 or 4 numbers"],
             files: ["ragged.json": Array("{\"matrix\": [[1,0],[0,1,0,5],[0,0,1]]}".utf8)]),
        Case(arguments: ["--filter", "matrix=big.json"], expect: ["big.json", "too large for a filter or shader file", "1 MiB"],
             files: ["big.json": [UInt8](repeating: 0x20, count: 2 << 20)]),
        Case(arguments: ["--filter", "brightness=nan"], expect: ["brightness=nan", "from -1"]),
        Case(arguments: ["--filter", "pixellate=0"], expect: ["pixellate=0", "1 to 512"]),
        Case(arguments: ["--filter", "contrast"], expect: ["'contrast' needs a value"]),
        Case(arguments: ["--filter", "missing.frag"], expect: ["missing.frag", "no such file"]),
        Case(arguments: ["--intensity", "-1"], expect: ["--intensity -1", "0 to 1"]),
        Case(arguments: ["--intensity", "nan"], expect: ["--intensity", "a number from 0 to 1"]),
        // Sizes, counts, rates and names of things.
        Case(arguments: ["--size", "12xx"], expect: ["--size 12xx", "WxH"]),
        Case(arguments: ["--size", "-5x5"], expect: ["--size -5x5", "not a size"]),
        Case(arguments: ["--size", "20000x100"], expect: ["--size 20000x100", "too large", "16384"]),
        Case(arguments: ["--input-size", "9000x9000"], expect: ["--input-size 9000x9000", "64 megapixels"]),
        Case(arguments: ["--input-size", "99999999999999999999x2"], expect: ["not a size"]),
        Case(arguments: ["--frames", "-1"], expect: ["'-1' is invalid for '--frames", "from 1 to 1000000000"]),
        Case(arguments: ["--frames", "abc"], expect: ["abc", "whole number", "kamera render --help"]),
        Case(arguments: ["--frames"], expect: ["Missing value for '--frames", "kamera render --help"]),
        Case(arguments: ["--fps", "0"], expect: ["--fps 0", "1/3600"]),
        Case(arguments: ["--fps", "nan"], expect: ["--fps nan", "1000"]),
        Case(arguments: ["--fps", "-30"], expect: ["--fps -30"]),
        Case(arguments: ["--zoom", "2"], expect: ["--zoom 2", "0 (no zoom) to 1"]),
        Case(arguments: ["--rotate", "45"], expect: ["--rotate 45", "0, 90, 180 or 270"]),
        Case(arguments: ["--rotate", "-90"], expect: ["--rotate -90", "0, 90, 180 or 270"]),
        Case(arguments: ["--fit", "zoom"], expect: ["--fit zoom", "contain, cover or stretch"]),
        Case(arguments: ["--crop", "circle"], expect: ["--crop circle", "square or none"]),
        Case(arguments: ["--color-matrix", "bt2020"], expect: ["bt2020", "bt601 or bt709"]),
        Case(arguments: ["--range", "tv"], expect: ["--range tv", "limited or full"]),
        Case(arguments: ["--format", "mjpeg"], expect: ["mjpeg", "yuyv", "nv12"]),
        Case(arguments: ["--format", "p010"], expect: ["p010", "yuyv, nv12"]),
        Case(arguments: ["--upload", "dmabuf"], expect: ["--upload dmabuf needs --camera"]),
        Case(arguments: ["--upload", "zero"], expect: ["--upload zero", "auto, copy or dmabuf"]),
        Case(arguments: ["--yuv-conversion", "gpu"], expect: ["--yuv-conversion gpu is not valid", "auto, cpu or shader"]),
        Case(arguments: ["--decoder", "gpu"], expect: ["--decoder gpu is not valid", "auto, cpu, v4l2 or a decoder's /dev/videoN"]),
        Case(arguments: ["--decoder", "v4l2"], expect: ["--decoder is for cameras", "mjpeg, h264, hevc or fwht"]),
        Case(arguments: ["--format", "fwht"], expect: ["--format fwht is only for --camera"]),
        Case(arguments: ["--png-compression", "9"], expect: ["--png-compression 9 is not valid", "fast, default or small"]),
        Case(arguments: ["--gpu", "x11"], expect: ["x11", "surfaceless"]),
        Case(arguments: ["--gpu", "gbm:/dev/null"], expect: ["/dev/null", "not a DRM device", "/dev/dri/renderD128"]),
        Case(arguments: ["--gpu", "gbm:/no/such/node"], expect: ["/no/such/node", "No such file"]),
        Case(arguments: ["--gles", "4"], expect: ["--gles 4", "auto, 2 or 3"]),
        Case(arguments: ["--sizee", "1x1"], expect: ["Unknown option '--sizee'", "kamera render --help"]),
        Case(arguments: ["--camera", "/dev/null"], expect: ["/dev/null", "not a V4L2 device", "kamera devices"]),
        Case(arguments: ["--camera", "/dev/video99"], expect: ["/dev/video99", "no such device"]),
        // A camera and a file are two sources composed: the first one's error.
        Case(arguments: ["--camera", "/dev/null", "--input", "x.png"], expect: ["/dev/null", "not a V4L2 device"]),
        // Outputs.
        Case(arguments: ["-o", ""], expect: ["output name is empty", "- for standard output"]),
        Case(arguments: ["-o", "no/such/folder/out.png"], expect: ["no/such/folder", "does not exist"]),
        Case(arguments: ["-o", "out"], expect: ["out", "is a folder", "out/frame.png"], folders: ["out"]),
        Case(arguments: ["--analyze", "luma", "--metadata", "meta", "-o", "f.png"], expect: ["meta", "is a folder", "meta/out.jsonl"], folders: ["meta"]),
        Case(arguments: ["-o", "shots.jpg"], expect: ["shots.jpg", "is a folder", "shots.jpg/frame.jpg"], folders: ["shots.jpg"]),
        Case(arguments: ["-o", "plain/out.png"], expect: ["plain/out.png", "is not a folder"], files: ["plain": []]),
        Case(arguments: ["--frames", "5", "-o", "out.png"], expect: ["%d"]),
        Case(arguments: ["-o", "o-%099999999999d.png", "--frames", "2"], expect: ["%019d"]),
        Case(arguments: ["-o", "o-%99999999999d.png", "--frames", "2"], expect: ["%d or %0Nd"]),
        Case(arguments: ["-o", "a%d-%d.png", "--frames", "2"], expect: ["only one %d"]),
        Case(arguments: ["-o", "a%s.png"], expect: ["%d or %0Nd", "%%"]),
        Case(arguments: ["-o", "dir%d/f.png", "--frames", "3"], expect: ["dir1/f.png", "'dir1' does not exist"], folders: ["dir0"]),
        Case(arguments: ["-o", String(repeating: "n", count: 300) + ".png"], expect: ["304 bytes long", "255"]),
        Case(arguments: ["--save-input", "no/dir/raw.yuv"], expect: ["no/dir/raw.yuv", "does not exist"]),
        Case(arguments: ["-o", "-", "--save-input", "-"], expect: ["cannot both use standard output"]),
        Case(arguments: ["-o", "same.png", "--save-input", "same.png"], expect: ["--save-input same.png is also where -o writes"]),
        Case(arguments: ["-o", "f-%d.png", "--frames", "2", "--save-input", "./f-1.png"], expect: ["is also where -o writes"]),
        // The other commands.
        Case(arguments: ["preview", "--duration", "0"], expect: ["'0' is invalid for '--duration", "above 0"]),
        Case(arguments: ["preview", "--duration", "nan"], expect: ["--duration", "seconds above 0"]),
        Case(arguments: ["preview", "--png-every", "-1"], expect: ["--png-every -1.0 must be above 0"]),
        Case(arguments: ["preview", "-o", "live-%d.png"], expect: ["give a name without %d"]),
        Case(arguments: ["cube", "--filter", "x"], expect: ["unknown filter 'x'"]),
        Case(arguments: ["controls", "/dev/null"], expect: ["/dev/null", "not a V4L2 device"]),
        Case(arguments: ["controls", "/dev/null", "--set", "brightness=1"], expect: ["/dev/null", "not a V4L2 device"]),
        Case(arguments: ["controls", "/dev/video99"], expect: ["/dev/video99", "no such device"]),
        Case(arguments: ["controls", "plain"], expect: ["plain", "not a device node"], files: ["plain": []]),
        Case(arguments: ["devices", "/dev/null"], expect: ["/dev/null", "not a V4L2 device"]),
        Case(arguments: ["bench", "--sizes", "0x0"], expect: ["--sizes 0x0", "not a size"]),
        Case(arguments: ["bench", "--sizes", ""], expect: ["--sizes names no size"]),
        Case(arguments: ["bench", "--formats", ","], expect: ["--formats names no format"]),
        Case(arguments: ["bench", "--soak", "-1"], expect: ["--soak -1 must be 0"]),
        Case(arguments: ["bench", "--frames", "-1"], expect: ["--frames -1 is too few"]),
        Case(arguments: ["bench", "--json"], expect: ["--json", "--end-to-end-only"]),
        Case(arguments: ["bench", "--end-to-end-runs", "0"], expect: ["--end-to-end-runs 0", "1 or more"]),
        Case(arguments: ["bench", "--display-frames", "9,3"], expect: ["--display-frames 9,3 is not valid", "SHORT,LONG"]),
        Case(arguments: ["shader", "nothere.frag"], expect: ["nothere.frag: no such file"]),
        Case(arguments: ["shader", "ok.frag", "--frames", "5..2"], expect: ["--frames 5..2 is not valid", "A..B"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--channel", "7=A"], expect: ["channel 7=A", "0 to 3"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--channel", "1=B"], expect: ["B: no such buffer", "--buffer B="], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--channel", "0=nothing.png"], expect: ["nothing.png"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--buffer", "E=x.frag"], expect: ["buffer E=x.frag", "A, B, C, D"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "-D", "1x"], expect: ["-D 1x", "not a macro name"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--uniform", "u_gain=abc"], expect: ["--uniform u_gain=abc", "not a value"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--uniform", "u_nope=1"], expect: ["u_nope", "iTime", "u_gain"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--uniform", "u_gain=1,2"], expect: ["u_gain is a float", "1 value"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--tolerance", "300"], expect: ["--tolerance 300", "0 to 255"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--time", "1", "--frames", "3"], expect: ["--frames and --time both given"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--frames", "3", "-o", "one.png"], expect: ["names one file", "%d"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--expect", "missing.png"], expect: ["missing.png: no such file", "rendering to missing.png"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "inc.frag"], expect: ["inc.frag:1: #include \"gone.glsl\": no such file", "-I DIR"],
             files: ["inc.frag": Array("#include \"gone.glsl\"\nvoid main() {}\n".utf8)]),
        Case(arguments: ["shader", "v.frag"], expect: ["v.frag:1: #version 310 es is not supported", "300 es"],
             files: ["v.frag": Array("#version 310 es\nvoid main() {}\n".utf8)]),
        Case(arguments: ["shader", "ok.frag", "--time", "1", "-o", "kms"], expect: ["-o kms runs live"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["render", "--expect", "g.png", "--tolerance", "-1"], expect: ["--tolerance"]),
        Case(arguments: ["shader", "ok.frag", "--time", "1e30"], expect: ["--time 1e+30 is out of range"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "i.frag", "--uniform", "u_n=99999999999"], expect: ["u_n is a int", "2147483647"],
             files: ["i.frag": Array("uniform int u_n;\nvoid mainImage(out vec4 o, in vec2 p) { o = vec4(float(u_n)); }\n".utf8)]),
        Case(arguments: ["shader", "ok.frag", "--uniform", "u_gain=1e39"], expect: ["not a value", "float's range"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--time", "1", "--expect", "g.png", "-o", "g.png"], expect: ["would write over the golden image g.png"],
             files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["render", "--expect", "g.png", "-o", "g.png"], expect: ["would write over the golden image g.png"]),
        Case(arguments: ["shader", "ok.frag", "-D", "GL_FOO=1"], expect: ["-D GL_FOO=1", "reserved"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "-D", "KAMERA=5"], expect: ["reserved"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--channel", "1=camera", "--channel", "1=camera"], expect: ["--channel 1 given twice"],
             files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "--tolerance", "2"], expect: ["--tolerance is for --expect"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "ok.frag", "-I", "nofolder"], expect: ["-I nofolder: no such folder"], files: ["ok.frag": BadInputTests.okShader]),
        Case(arguments: ["shader", "nul.frag"], expect: ["nul.frag:2: holds the control byte 0x00"],
             files: ["nul.frag": Array("void mainImage(out vec4 o, in vec2 p) {\n o = vec4(1.0); }\u{0}junk\n".utf8)]),
        Case(arguments: ["shader", "both.frag"], expect: ["defines both mainImage and main"],
             files: ["both.frag": Array("void mainImage(out vec4 o, in vec2 p) { o = vec4(1.0); }\nvoid main() {}\n".utf8)]),
        Case(arguments: ["shader", "ok.frag", "--channel", "0=gone.png"], expect: ["channel image gone.png: no such file"],
             files: ["ok.frag": BadInputTests.okShader]),
        // Each file includes the next twice: 2^14 includes if followed.
        Case(arguments: ["shader", "fan.frag"], expect: ["more than 4096 #includes followed", "#ifndef guard"],
             files: BadInputTests.includeFan(depth: 14)),
        Case(arguments: ["nosuch"], expect: ["nosuch"]),
    ]

    /// `fan.frag` and `f0.glsl`...: each file includes the next one twice.
    static func includeFan(depth: Int) -> [String: [UInt8]] {
        var files = ["fan.frag": Array("#include \"f0.glsl\"\nvoid mainImage(out vec4 o, in vec2 p) { o = vec4(1.0); }\n".utf8)]
        for i in 0..<depth {
            files["f\(i).glsl"] = Array((i + 1 < depth ? "#include \"f\(i + 1).glsl\"\n#include \"f\(i + 1).glsl\"\n" : "float x\(i);\n").utf8)
        }
        return files
    }

    /// A shader with one user uniform, for the shader command's cases.
    static let okShader = Array("uniform float u_gain;\nvoid mainImage(out vec4 o, in vec2 p) { o = vec4(iTime * u_gain); }\n".utf8)

    func testEveryBadInputGetsOneLineAndLeavesNothing() throws {
        XCTAssertGreaterThanOrEqual(Self.cases.count, 40)
        for c in Self.cases {
            for folder in c.folders {
                try FileManager.default.createDirectory(atPath: run.path(folder), withIntermediateDirectories: true)
            }
            for (name, bytes) in c.files { try run.write(name, bytes) }
            try run.assertFails(c.arguments, mentioning: c.expect)
        }
    }
}
