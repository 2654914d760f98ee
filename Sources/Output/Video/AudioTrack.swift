import CFFmpeg
import Foundation
import Messages
import Pixels

/// The sound stream of a recording: 16-bit interleaved samples in, placed
/// on the video's timeline by their monotonic timestamps, encoded (AAC in
/// MP4/MOV, Opus in Matroska/WebM) and muxed beside the picture. Used on the
/// recording's encoder thread only.
///
/// Samples are counted from the first one; each chunk's timestamp is checked
/// against the count. When they differ by more than `resyncSeconds` (the
/// sound card's clock drifting from the monotonic clock, or sound lost to an
/// overrun), the track follows the timestamp: silence fills a gap, samples
/// that would overlap are dropped. So sound stays within 20 ms of the
/// picture however long the run, less than one frame at 30 fps.
final class AudioTrack {
    static let resyncSeconds = 0.020

    let codecName: String
    let rate: Int, channels: Int
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private(set) var stream: UnsafeMutablePointer<AVStream>!
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let frameSize: Int
    /// Samples waiting to fill a codec frame, interleaved; the first is sample number `pendingStart`.
    private var pending: [Int16] = []
    private var pendingStart: Int64 = 0
    /// The sample number the next sample appended gets; nil before the first.
    private var next: Int64?
    /// Corrections made, for the summary.
    private(set) var resyncs = 0
    private(set) var samplesWritten: Int64 = 0

    /// The encoder `--audio-codec` names (or the container's default) for `container`.
    static func codec(named name: String?, container: VideoContainer) throws -> String {
        let choice = name?.lowercased() ?? (container.isISO ? "aac" : "opus")
        let allowed: [String] = container.isISO ? ["aac"] : container == .webm ? ["opus"] : ["opus", "aac", "flac"]
        guard allowed.contains(choice) else {
            throw OutputError("\(Setting.audioCodec) \(excerpt(choice)): .\(container.rawValue) takes \(allowed.joined(separator: ", "))")
        }
        return choice
    }

    /// `live`: a stream sent as it is made, where FFmpeg's AAC encoder takes its fast coder
    /// (a fraction of the default's CPU, which a machine busy with the picture may not spare).
    /// Checks `--audio-codec` before anything is made: with sound, a codec
    /// `container` takes; without, that none was asked for (`purpose`: what the sound would be for, "recording").
    static func checkCodec(_ name: String?, hasSound: Bool, container: VideoContainer, purpose: String) throws {
        if hasSound {
            _ = try codec(named: name, container: container)
        } else if name != nil {
            throw OutputError(.audioCodec, is: "for \(purpose) sound", "add \(Setting.audio) DEVICE")
        }
    }

    init(format: UnsafeMutablePointer<AVFormatContext>, codecName: String, rate: Int, channels: Int, path: String, live: Bool = false) throws {
        self.codecName = codecName
        self.rate = rate
        self.channels = channels
        let encoderName = codecName == "opus" ? "libopus" : codecName
        guard let encoder = avcodec_find_encoder_by_name(encoderName) else {
            throw OutputError("\(path): the installed FFmpeg libraries have no \(encoderName) encoder")
        }
        if codecName == "opus" && ![8000, 12000, 16000, 24000, 48000].contains(rate) {
            throw OutputError("\(path): Opus takes 8000, 12000, 16000, 24000 or 48000 Hz, not \(rate); use \(Setting.audioRate) 48000")
        }
        guard let codec = avcodec_alloc_context3(encoder), let stream = avformat_new_stream(format, nil),
              let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            throw OutputError("\(path): out of memory opening the \(encoderName) encoder")
        }
        (self.codec, self.stream, self.frame, self.packet) = (codec, stream, frame, packet)
        codec.pointee.sample_fmt = codecName == "aac" ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_S16
        codec.pointee.sample_rate = Int32(rate)
        av_channel_layout_default(&codec.pointee.ch_layout, Int32(channels))
        codec.pointee.time_base = AVRational(num: 1, den: Int32(rate))
        if codecName != "flac" { codec.pointee.bit_rate = Int64(64_000 * channels) }
        if format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 { codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if live && codecName == "aac" { av_dict_set(&options, "aac_coder", "fast", 0) }
        var status = avcodec_open2(codec, encoder, &options)
        guard status >= 0 else { throw VideoEncoder.error(status, "\(path): the \(encoderName) encoder refused \(rate) Hz, \(channels) channel(s)") }
        status = avcodec_parameters_from_context(stream.pointee.codecpar, codec)
        guard status >= 0 else { throw VideoEncoder.error(status, "\(path): cannot describe the sound stream") }
        stream.pointee.time_base = codec.pointee.time_base
        frameSize = codec.pointee.frame_size > 0 ? Int(codec.pointee.frame_size) : 1024
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.format = codec.pointee.sample_fmt.rawValue
        frame.pointee.sample_rate = Int32(rate)
        av_channel_layout_copy(&frame.pointee.ch_layout, &codec.pointee.ch_layout)
        status = av_frame_get_buffer(frame, 0)
        guard status >= 0 else { throw VideoEncoder.error(status, "\(path): out of memory for sound frames") }
        pending.reserveCapacity((frameSize + rate) * channels)
    }

    deinit {
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
    }

    /// Appends `frames` frames captured from `start` seconds after the video's
    /// first frame (negative: before it; those samples are dropped), encoding
    /// and writing every codec frame completed. Samples after `end` seconds are dropped.
    func append(_ samples: UnsafeBufferPointer<Int16>, frames: Int, start: Double, end: Double = .infinity,
                to format: UnsafeMutablePointer<AVFormatContext>) throws {
        let startSample = Int64((start * Double(rate)).rounded())
        let endSample = end.isFinite ? Int64((end * Double(rate)).rounded(.down)) : .max
        let threshold = Int64(Self.resyncSeconds * Double(rate))
        var skip = 0
        var at: Int64
        if let next {
            at = next
            let drift = startSample - next
            if abs(drift) > threshold {
                resyncs += 1
                if drift > 0 {
                    // Sound missing (an overrun, or the card's clock slower): silence up to where this chunk belongs.
                    let silence = Int(max(0, min(drift, endSample - at)))
                    pending.append(contentsOf: repeatElement(0, count: silence * channels))
                    at += Int64(silence)
                } else {
                    // The card's clock faster: what overlaps the sound already placed goes.
                    skip = Int(min(-drift, Int64(frames)))
                }
            }
        } else {
            // The first chunk: placed at its time; what was captured before the picture's first frame
            // goes, and silence fills from the first frame to it (capture starts with the first frame).
            if startSample < 0 { skip = Int(min(-startSample, Int64(frames))) }
            pendingStart = 0
            let lead = Int(min(max(0, startSample), 2 * Int64(rate), endSample))
            pending.append(contentsOf: repeatElement(0, count: lead * channels))
            at = Int64(lead)
        }
        let count = max(0, min(frames - skip, Int(clamping: endSample - at)))
        if count > 0 {
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: samples[(skip * channels)..<((skip + count) * channels)]))
        }
        next = at + Int64(count)
        try encodeFull(format)
    }

    /// Encodes what is left (a last, shorter frame) and drains the encoder;
    /// sound that ends less than a second before `end` (the picture's end) is
    /// filled with silence up to it, so both streams last as long.
    func finish(_ format: UnsafeMutablePointer<AVFormatContext>, end: Double) throws {
        let endSample = Int64((end * Double(rate)).rounded(.down))
        let at = next ?? 0
        if end.isFinite, endSample > at, endSample - at < Int64(rate) {
            pending.append(contentsOf: repeatElement(0, count: Int(endSample - at) * channels))
            next = endSample
        }
        try encodeFull(format)
        if !pending.isEmpty { try encode(count: pending.count / channels, format) }
        guard let codec else { return }
        let status = avcodec_send_frame(codec, nil)
        guard status >= 0 || status == kamera_averror_eof() else { throw VideoEncoder.error(status, "the sound encoder failed while finishing") }
        try drain(format)
    }

    /// Seconds of sound written.
    var seconds: Double { Double(samplesWritten) / Double(rate) }

    private func encodeFull(_ format: UnsafeMutablePointer<AVFormatContext>) throws {
        while pending.count >= frameSize * channels { try encode(count: frameSize, format) }
    }

    private func encode(count: Int, _ format: UnsafeMutablePointer<AVFormatContext>) throws {
        guard let codec, let frame else { return }
        var status = av_frame_make_writable(frame)
        guard status >= 0 else { throw VideoEncoder.error(status, "out of memory for a sound frame") }
        frame.pointee.nb_samples = Int32(count)
        pending.withUnsafeBufferPointer { source in
            if codec.pointee.sample_fmt == AV_SAMPLE_FMT_FLTP {
                for channel in 0..<channels {
                    let plane = UnsafeMutableRawPointer(frame.pointee.extended_data[channel]!).assumingMemoryBound(to: Float.self)
                    for i in 0..<count { plane[i] = Float(source[i * channels + channel]) / 32768 }
                }
            } else {
                UnsafeMutableRawPointer(frame.pointee.data.0!).copyMemory(from: source.baseAddress!, byteCount: count * channels * 2)
            }
        }
        pending.removeFirst(count * channels)
        frame.pointee.pts = pendingStart
        pendingStart += Int64(count)
        samplesWritten += Int64(count)
        status = avcodec_send_frame(codec, frame)
        guard status >= 0 else { throw VideoEncoder.error(status, "the \(codecName) encoder failed") }
        try drain(format)
    }

    private func drain(_ format: UnsafeMutablePointer<AVFormatContext>) throws {
        guard let codec, let packet else { return }
        try VideoEncoder.writePackets(of: codec, through: packet, to: stream, in: format, what: "the \(codecName) encoder")
    }
}