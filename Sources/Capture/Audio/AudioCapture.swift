import CALSA
import Foundation
import Lifecycle
import Messages

/// Sound from an ALSA capture device (`default`, `hw:1,0`,
/// `plughw:CARD=Loopback`; PipeWire and PulseAudio offer an ALSA device
/// too), read on a thread of its own as 16-bit interleaved samples, each
/// chunk stamped on CLOCK_MONOTONIC, the clock V4L2 stamps frames with.
///
/// A chunk's time is the driver's timestamp of its last period update less
/// the frames captured after the chunk's first sample, so the sound card's
/// own clock (which drifts from the monotonic clock by parts per
/// thousand) never accumulates: every chunk is placed afresh.
public final class AudioCapture: @unchecked Sendable {
    public let device: String
    public let rate: Int
    public let channels: Int
    /// Frames (samples per channel) per chunk handed out: 10 ms.
    public var chunkFrames: Int { rate / 100 }
    private var pcm: OpaquePointer?
    private var thread: JoinableThread?
    private let lock = ConditionLock()
    private var stopping = false
    private var subscribers: [(Chunk) -> Void] = []
    /// Capture overruns (the thread was late and the card dropped sound).
    public private(set) var overruns = 0
    /// The error that ended capture, if one did.
    public private(set) var failure: Error?

    /// One chunk: `frames` frames of interleaved Int16, the first captured at `timestamp` (monotonic nanoseconds).
    public struct Chunk {
        public var samples: UnsafeBufferPointer<Int16>
        public var frames: Int
        public var timestamp: UInt64
    }

    /// Opens and configures the device; nothing is captured before `start`.
    /// Throws, naming what would work, when the device is missing or busy or
    /// refuses the rate or channels.
    public init(device: String, rate: Int = 48000, channels: Int = 2) throws {
        kamera_alsa_quiet()
        self.device = device
        self.rate = rate
        self.channels = channels
        guard (1...8).contains(channels) else { throw CaptureError(.audioChannels, "\(channels)", is: "out of range", "use 1 (mono) to 8") }
        guard (8000...192_000).contains(rate) else { throw CaptureError(.audioRate, "\(rate)", is: "out of range", "use 8000 to 192000, e.g. 48000") }
        var pcm: OpaquePointer?
        var status = snd_pcm_open(&pcm, device, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK)
        guard status == 0, let pcm else {
            if status == -EBUSY { throw CaptureError("sound device \(device) is busy: another program is recording from it") }
            throw CaptureError("sound device \(device): \(String(cString: snd_strerror(status))); capture devices: \(AudioDevice.listing()) (or default, plughw:CARD=NAME)")
        }
        self.pcm = pcm
        var hw: OpaquePointer?
        snd_pcm_hw_params_malloc(&hw)
        defer { snd_pcm_hw_params_free(hw) }
        snd_pcm_hw_params_any(pcm, hw)
        status = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)
        guard status == 0, snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE) == 0 else {
            throw CaptureError("sound device \(device) does not give 16-bit samples; try plughw:\(device.split(separator: ":").last ?? "0,0"), which converts")
        }
        guard snd_pcm_hw_params_set_channels(pcm, hw, UInt32(channels)) == 0 else {
            var low: UInt32 = 0, high: UInt32 = 0
            snd_pcm_hw_params_get_channels_min(hw, &low)
            snd_pcm_hw_params_get_channels_max(hw, &high)
            throw CaptureError("sound device \(device) does not record \(channels) channel(s); it records \(low == high ? "\(low)" : "\(low) to \(high)"): use \(Setting.audioChannels) \(low)")
        }
        guard snd_pcm_hw_params_set_rate(pcm, hw, UInt32(rate), 0) == 0 else {
            let offered = [8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 192_000].filter { snd_pcm_hw_params_test_rate(pcm, hw, UInt32($0), 0) == 0 }
            throw CaptureError("sound device \(device) does not record at \(rate) Hz; it records at \(offered.map(String.init).joined(separator: ", ")) Hz: use \(Setting.audioRate) \(offered.first { $0 == 48000 } ?? offered.first ?? 48000), or plughw: to resample")
        }
        var period = snd_pcm_uframes_t(rate / 100), buffer = snd_pcm_uframes_t(rate / 2)
        var direction: Int32 = 0
        snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &direction)
        snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer)
        status = snd_pcm_hw_params(pcm, hw)
        guard status == 0 else { throw CaptureError("sound device \(device): cannot be set up: \(String(cString: snd_strerror(status)))") }
        var sw: OpaquePointer?
        snd_pcm_sw_params_malloc(&sw)
        defer { snd_pcm_sw_params_free(sw) }
        snd_pcm_sw_params_current(pcm, sw)
        snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE)
        snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC)
        status = snd_pcm_sw_params(pcm, sw)
        guard status == 0 else { throw CaptureError("sound device \(device): cannot stamp on the monotonic clock: \(String(cString: snd_strerror(status)))") }
    }

    deinit {
        stop()
        if let pcm { snd_pcm_close(pcm) }
    }

    /// Hears every chunk, on the capture thread; valid only during the call.
    public func subscribe(_ body: @escaping (Chunk) -> Void) {
        lock.withLock { subscribers.append(body) }
    }

    /// Starts capturing; chunks go to the subscribers from now on.
    public func start() {
        guard thread == nil else { return }
        thread = JoinableThread(name: "kamera.audio") { [unowned self] in run() }
    }

    /// Stops and joins the capture thread (within 100 ms).
    public func stop() {
        lock.withLock { stopping = true }
        thread?.join()
        thread = nil
    }

    private func run() {
        guard let pcm else { return }
        let chunk = chunkFrames
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: chunk * channels)
        defer { buffer.deallocate() }
        snd_pcm_start(pcm)
        while !lock.withLock({ stopping }) {
            // Waits at most 100 ms, so a stop is answered.
            let ready = snd_pcm_wait(pcm, 100)
            if ready < 0 && !recover(Int32(ready)) { return }
            // A device that never runs dry (ALSA's null) would keep this loop going: a stop is looked for every chunk.
            while !lock.withLock({ stopping }) {
                let read = snd_pcm_readi(pcm, buffer.baseAddress, snd_pcm_uframes_t(chunk))
                if read == -Int(EAGAIN) { break }
                if read < 0 {
                    if !recover(Int32(read)) { return }
                    break
                }
                guard read > 0 else { break }
                var available: UInt = 0, now: UInt64 = 0
                guard kamera_pcm_htimestamp(pcm, &available, &now) == 0, now > 0 else { continue }
                // The chunk's first frame was captured `available + read` frames before the stamp.
                let before = UInt64(Int(available) + read) * 1_000_000_000 / UInt64(rate)
                let piece = Chunk(samples: UnsafeBufferPointer(start: buffer.baseAddress, count: read * channels), frames: read,
                                  timestamp: now &- min(before, now))
                for subscriber in lock.withLock({ subscribers }) { subscriber(piece) }
            }
        }
        snd_pcm_drop(pcm)
    }

    /// Restarts after an overrun; false (and `failure` set) when the device is gone.
    private func recover(_ status: Int32) -> Bool {
        if status == -EPIPE || status == -ESTRPIPE {
            overruns += 1
            if snd_pcm_prepare(pcm) == 0 && snd_pcm_start(pcm) == 0 { return true }
        }
        failure = CaptureError("sound device \(device) stopped: \(String(cString: snd_strerror(status)))")
        return false
    }
}
