import Messages

/// The library says what went wrong in its own terms, naming settings
/// (`Setting`); the command line says which option each setting is. Installed
/// as `Setting.names` before any command runs.
public enum FlagNames {
    /// Each setting's option, by the setting's key.
    static let options: [String: String] = [
        "output": "-o", "save-input": "--save-input", "allow-damaged": "--allow-damaged", "input": "--input", "camera": "--camera", "format": "--format", "input-size": "--input-size", "fps": "--fps",
        "size": "--size", "decoder": "--decoder", "yuv-conversion": "--yuv-conversion", "upload": "--upload", "black-level": "--black-level",
        "warmup": "--warmup", "stream": "--stream", "quality": "--quality", "codec": "--codec", "crf": "--crf", "preset": "--preset", "bitrate": "--bitrate",
        "gop": "--gop", "faststart": "--faststart", "audio": "--audio", "audio-rate": "--audio-rate", "audio-channels": "--audio-channels",
        "audio-codec": "--audio-codec", "detect": "--detect", "overlay": "--overlay", "once": "--once", "uniform": "--uniform",
        "channel": "--channel", "buffer": "--buffer", "gles": "--gles", "gpu": "--gpu", "frame-timeout": "--frame-timeout",
        "expect": "--expect", "card": "--card", "connector": "--connector", "mode": "--mode", "legacy": "--legacy", "set": "--set",
        "camera-formats": "kamera devices --formats", "sound-devices": "kamera devices --audio",
        "serve": "--serve", "serve-fps": "--serve-fps", "auth": "--auth", "v4l2-format": "--v4l2-format",
        "persistent": "--persistent", "fallback-image": "--fallback-image",
    ]

    /// The option that sets `setting`; its own words for a setting no option sets.
    public static func option(for setting: Setting) -> String { options[setting.key] ?? setting.words }

    /// The settings no option names (none, as the tests check).
    public static var unnamed: [Setting] { Setting.all.filter { options[$0.key] == nil } }

    /// From now on, messages name options.
    public static func install() { Setting.names = option(for:) }
}
