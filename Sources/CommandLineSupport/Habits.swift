/// Options users of other camera and shader tools type by habit (ffmpeg,
/// fswebcam, v4l2-ctl, kmscube, glslViewer) that Kamera spells otherwise:
/// a command line that does not parse and holds one of these is answered with
/// Kamera's way, in one line. Aliases Kamera takes as they are (`-d`,
/// `--device`, `-r`, `--resolution`, `-i`, `--list-formats-ext`, `--set-ctrl`)
/// are options of the commands themselves, not here.
public enum Habits {
    /// Option → what to use in Kamera.
    static let answers: [String: String] = [
        "-vf": "Kamera's is --filter (--filter sepia, --filter blur=5; kamera render --list-filters)",
        "-filter:v": "Kamera's is --filter (--filter sepia, --filter blur=5; kamera render --list-filters)",
        "-filter_complex": "Kamera's is --filter, repeated to chain (--filter sepia --filter contrast=1.3)",
        "-s": "Kamera's is --size WxH for the output (--input-size WxH for the camera or raw input)",
        "-t": "Kamera's is --duration S (seconds) or --frames N",
        "-n": "Kamera replaces output files; give a new name to keep an old one",
        "-c:v": "Kamera's is --codec (h264, hevc, vp9, av1, mjpeg, ffv1) with -o NAME.mp4, .mkv, .mov or .webm",
        "-vcodec": "Kamera's is --codec (h264, hevc, vp9, av1, mjpeg, ffv1) with -o NAME.mp4, .mkv, .mov or .webm",
        "-f": "Kamera picks the output by its name (NAME.png, NAME.jpg, NAME.y4m, NAME.mp4, kms, -); the input format is --format",
        "-framerate": "Kamera's is --fps N",
        "--framerate": "Kamera's is --fps N",
        "-frames:v": "Kamera's is --frames N",
        "-vframes": "Kamera's is --frames N",
        "-c": "Kamera's is --frames N (kmscube's -c count)",
        "--count": "Kamera's is --frames N",
        "--stream-count": "Kamera's is --frames N",
        "--stream-mmap": "Kamera streams with mmap (or dma-bufs) by itself; --frames N sets the count",
        "--set-fmt-video": "Kamera's are --input-size WxH and --format NAME (kamera devices --formats lists them)",
        "--list-devices": "Kamera's is the command kamera devices",
        "--list-ctrls": "Kamera's is the command kamera controls /dev/videoN",
        "-l": "Kamera's is the command kamera controls /dev/videoN (v4l2-ctl -l), or --list-filters",
        "-p": "Kamera's is --format NAME (fswebcam's --palette)",
        "--palette": "Kamera's is --format NAME",
        "--save": "Kamera's is -o FILE (NAME.png, NAME.jpg, NAME-%03d.png, NAME.y4m, NAME.mp4)",
        "--png": "Kamera writes PNG when -o names a .png file",
        "--jpeg": "Kamera writes JPEG when -o names a .jpg file (--quality 1-100)",
        "--no-banner": "Kamera draws no banner",
        "--width": "Kamera's is --size WxH (--input-size WxH for the camera)",
        "--height": "Kamera's is --size WxH (--input-size WxH for the camera)",
        "-w": "Kamera's is --size WxH",
        "--fullscreen": "Kamera's is -o kms (full screen on the console's display)",
        "--headless": "Kamera renders offscreen unless -o kms; nothing to add",
        "-D": "Kamera's is --card /dev/dri/cardN (kmscube's -D; -D NAME defines a macro only for kamera shader)",
        "--mode": "Kamera's is --mode WxH[@HZ] with -o kms",
        "-M": "Kamera's is --cube for the spinning cube (kmscube's -M)",
        "--vflip": "Kamera's are --rotate 180 and --mirror",
        "--hflip": "Kamera's is --mirror",
        "--flip": "Kamera's are --mirror and --rotate 180",
    ]

    /// The answer for the first habit on `arguments` (an option as typed, or
    /// its name before `=`), as one line; nil when none is there.
    public static func answer(for arguments: [String]) -> String? {
        for argument in arguments {
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard let answer = answers[name] else { continue }
            // An answer that points at the command in use (`kamera controls --list-ctrls`) says it does that already.
            if let command = arguments.first, !command.hasPrefix("-"), answer.hasPrefix("Kamera's is the command kamera \(command)") {
                return "unknown option \(name); kamera \(command) does that without it: leave \(name) out"
            }
            return "unknown option \(name); \(answer)"
        }
        return nil
    }
}
