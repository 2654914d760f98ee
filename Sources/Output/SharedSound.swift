import Capture
import Messages

/// The run's sound device, opened when the first sink that records sound
/// asks for it (so that a missing or busy device, or a rate it refuses, is
/// said before any file is made) and shared by every such sink.
public final class SharedSound {
    public let request: SoundRequest
    private var capture: AudioCapture?
    /// True once a sink has asked for the sound.
    public private(set) var isTaken = false

    init(_ request: SoundRequest) { self.request = request }

    /// The capture, opened on first call; nil when no sound was asked for.
    /// `live`: whether the run is live, which sound needs.
    public func take(live: Bool) throws -> AudioCapture? {
        guard let device = request.device else { return nil }
        isTaken = true
        if let capture { return capture }
        guard live else {
            throw OutputError(.audio, does: "records live runs: a camera (\(Setting.camera)), or the preview (kamera preview)", "an export from a file or the test pattern renders faster than sound comes")
        }
        if device.isEmpty { throw OutputError(.audio, is: "empty", "give a capture device such as default or hw:1,0 (\(Setting.soundDevices) lists them)") }
        capture = try AudioCapture(device: device, rate: request.rate, channels: request.channels)
        return capture
    }
}
