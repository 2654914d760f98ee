import CFFmpeg
import Foundation
import Lifecycle
import Messages
import Pixels

/// One video file being encoded with FFmpeg's libraries: RGBA frames
/// converted by swscale to the encoder's pixel format, or planar 4:2:0 frames
/// made by Kamera in `planarColorSpace`, encoded, muxed and written through
/// Kamera's own file (`OutputFile`). Used from one thread.
final class VideoEncoder {
    let encoderName: String
    /// The pixel format stored (`yuv420p`, `gbrp`, …).
    let pixelFormatName: String
    let width: Int, height: Int
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    /// A network connection libavformat opened for the muxer (`avio_open2`), closed with it.
    private var ownsConnection = false
    private var scaler: OpaquePointer?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var stream: UnsafeMutablePointer<AVStream>!
    private let path: String
    private var lastPTS: Int64 = .min
    private var headerWritten = false
    /// The file written, for its length at each cut.
    private let descriptor: Int32
    /// Fragments (MP4/MOV) or clusters (Matroska) are cut by Kamera: after
    /// the first frame, then every `cutSeconds` of picture, so a run killed
    /// outright loses at most that much of what reached the muxer.
    private let cuts: Bool
    static let cutSeconds = 0.5
    private var nextCut = 0.0
    private var videoPacketsWritten = 0
    /// The latest picture packet (`hold`), and whether it holds one.
    private var held = av_packet_alloc()
    private var holding = false
    /// The end in seconds of the latest picture written.
    private var writtenEnd = 0.0
    /// What the file held at the last cut: only whole fragments (clusters).
    private(set) var whole = WholePart()

    /// The file up to a cut: its length in bytes, and the frames and seconds of picture in it.
    struct WholePart: Equatable {
        var bytes: Int64 = 0
        var frames = 0
        var seconds = 0.0
    }

    /// The color space of the planar 4:2:0 frames `encode(planar:pts:)` takes,
    /// when the encoder stores 4:2:0 (yuv420p, yuvj420p); nil when it stores
    /// another format (RGB for FFV1, NV12) and takes only RGBA.
    private(set) var planarColorSpace: YUVColorSpace?

    /// For `encode(planar:pts:)` with an encoder that copies each picture
    /// into frames of its own before `avcodec_send_frame` returns (x264,
    /// x265): the caller's planes handed over where they lie, no copy. Its
    /// `buf[0]` is set only for the call, to `borrowed`'s wrapper of that memory.
    private var inPlace: UnsafeMutablePointer<AVFrame>?
    /// The callers' blocks of memory, each wrapped once as an AVBuffer that
    /// frees nothing: the memory stays theirs.
    private var borrowed: [UnsafeMutableRawPointer: UnsafeMutablePointer<AVBufferRef>] = [:]
    /// Pictures the encoder read from the caller's memory.
    private(set) var framesReadInPlace = 0
    private static let readInPlace: Set<String> = ["libx264", "libx265"]

    /// The time base of `pts` given to `encode`: 1/rate for frame-exact runs, 1/90000 for live timestamps.
    let timeBase: AVRational

    /// Opens the encoder and writes the container's header to `file`.
    /// The sound stream, with `--audio`.
    private(set) var audio: AudioTrack?

    convenience init(file: OutputFile, container: VideoContainer, settings: VideoSettings, width: Int, height: Int,
                     rate: Double, live: Bool, sound: (rate: Int, channels: Int)? = nil) throws {
        try self.init(.file(file, container), settings: settings, width: width, height: height, rate: rate, live: live, sound: sound)
    }

    /// Opens the encoder and writes the container's header to the destination
    /// (for a network address, libavformat connects first).
    init(_ destination: VideoDestination, settings: VideoSettings, width: Int, height: Int,
         rate: Double, live: Bool, sound: (rate: Int, channels: Int)? = nil) throws {
        Self.quietLibraries
        path = destination.name
        let container = destination.container
        let file = destination.file
        descriptor = file?.descriptor ?? -1
        cuts = file != nil && !(container.isISO && settings.faststart)
        self.width = width
        self.height = height
        let codecChoice = try VideoRecording.encoder(for: settings.codec, container: container)
        encoderName = codecChoice.encoder
        guard let encoder = avcodec_find_encoder_by_name(encoderName) else {
            throw OutputError("\(path): the installed FFmpeg libraries have no \(encoderName) encoder")
        }
        let pixelFormat = try Self.pixelFormat(for: encoder, codec: codecChoice.codec, path: path)
        pixelFormatName = String(cString: av_get_pix_fmt_name(pixelFormat))
        if let problem = VideoCodec.sizeProblem(width: width, height: height) { throw OutputError("\(path): \(problem)") }
        if codecChoice.codec != .ffv1, pixelFormat != AV_PIX_FMT_GBRP, width % 2 != 0 || height % 2 != 0 {
            throw OutputError("\(path): \(width)x\(height) is odd; \(pixelFormatName) video needs an even width and height: use \(Setting.size) \(width + width % 2)x\(height + height % 2), or \(Setting.codec) ffv1 in .mkv")
        }
        let (numerator, denominator) = Y4MOutput.rateFraction(rate)
        timeBase = live ? AVRational(num: 1, den: 90000) : AVRational(num: Int32(denominator), den: Int32(numerator))

        var format: UnsafeMutablePointer<AVFormatContext>?
        var status = avformat_alloc_output_context2(&format, nil, destination.muxer, nil)
        guard status >= 0, let format else { throw Self.error(status, "\(path): cannot make a \(destination.muxer) stream") }
        self.format = format
        guard let codec = avcodec_alloc_context3(encoder), let stream = avformat_new_stream(format, nil),
              let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            throw OutputError("\(path): out of memory opening the \(encoderName) encoder")
        }
        (self.codec, self.stream, self.frame, self.packet) = (codec, stream, frame, packet)
        codec.pointee.width = Int32(width)
        codec.pointee.height = Int32(height)
        codec.pointee.pix_fmt = pixelFormat
        codec.pointee.time_base = timeBase
        codec.pointee.framerate = AVRational(num: Int32(numerator), den: Int32(denominator))
        codec.pointee.gop_size = Int32((settings.gop ?? .standard).frames(at: rate))
        codec.pointee.thread_count = Int32(settings.threads)
        // The picture is RGB rendered in sRGB: BT.709 primaries; the Y'CbCr matrix BT.709 from 720 lines up, BT.601 below, as players assume.
        let space = Self.yuvColorSpace(pixelFormat, height: height)
        let isRGB = pixelFormat == AV_PIX_FMT_GBRP || pixelFormat == AV_PIX_FMT_BGR0
        planarColorSpace = pixelFormat == AV_PIX_FMT_YUV420P || pixelFormat == AV_PIX_FMT_YUVJ420P ? space : nil
        codec.pointee.color_primaries = AVCOL_PRI_BT709
        codec.pointee.color_trc = AVCOL_TRC_IEC61966_2_1
        codec.pointee.colorspace = isRGB ? AVCOL_SPC_RGB : space.matrix == .bt709 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
        let fullRange = isRGB || space.range == .full
        codec.pointee.color_range = fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        if let bitrate = settings.bitrate { codec.pointee.bit_rate = Int64(bitrate) }
        // A fragmented MP4 has no edit list to hide B-frames' decoding delay:
        // its first frame would show at two frame times, not 0. Without
        // B-frames every frame is at its own time (and live latency is lower).
        if container.isISO && !settings.faststart || file == nil { codec.pointee.max_b_frames = 0 }
        if SourceDate.fixed != nil { codec.pointee.flags |= AV_CODEC_FLAG_BITEXACT }
        if format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for (key, value) in Self.encoderOptions(encoderName, settings: settings, live: live || settings.realTime, width: width, height: height) {
            av_dict_set(&options, key, value, 0)
        }
        status = avcodec_open2(codec, encoder, &options)
        if status < 0, VideoCodec.isHardware(encoderName) {
            let software = codecChoice.codec.installedEncoder.map { "use \(Setting.codec) \($0) (software)" } ?? "use a software encoder"
            throw Self.error(status, "\(path): the \(encoderName) encoder found no device it can use (its GPU and driver)", remedy: software)
        }
        guard status >= 0 else { throw Self.error(status, "\(path): the \(encoderName) encoder refused \(width)x\(height) \(pixelFormatName)") }
        if let left = av_dict_get(options, "", nil, AV_DICT_IGNORE_SUFFIX) {
            throw OutputError("\(path): the \(encoderName) encoder does not take \(String(cString: left.pointee.key)); leave it out")
        }
        status = avcodec_parameters_from_context(stream.pointee.codecpar, codec)
        guard status >= 0 else { throw Self.error(status, "\(path): cannot describe the video stream") }
        stream.pointee.time_base = timeBase
        stream.pointee.avg_frame_rate = codec.pointee.framerate
        if let sound {
            audio = try AudioTrack(format: format, codecName: try AudioTrack.codec(named: settings.audioCodec, container: container),
                                   rate: sound.rate, channels: sound.channels, path: path, live: file == nil)
        }

        var muxerOptions: OpaquePointer?
        defer { av_dict_free(&muxerOptions) }
        if let file {
            guard let io = kamera_avio_for_fd(file.descriptor, file.isStream ? 0 : 1) else {
                throw OutputError("\(path): out of memory opening the file")
            }
            self.io = io
            format.pointee.pb = io
            format.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            // `+faststart` reads the file back by its name to move the index first:
            // the unnamed temporary is reachable through /proc.
            format.pointee.url = av_strdup("/proc/self/fd/\(file.descriptor)")
            for (key, value) in Self.muxerOptions(container, settings: settings) {
                av_dict_set(&muxerOptions, key, value, 0)
            }
        } else if case .network(let url, _, let options, let interrupt) = destination {
            format.pointee.url = av_strdup(url)
            format.pointee.interrupt_callback = interrupt
            // The interleaving queue holds the picture no longer than this for sound that has not come.
            format.pointee.max_interleave_delta = 300_000
            for (key, value) in options { av_dict_set(&muxerOptions, key, value, 0) }
            // The muxers that carry their own connection (RTSP) open it in the header.
            if format.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
                var protocolOptions: OpaquePointer?
                defer { av_dict_free(&protocolOptions) }
                for (key, value) in options { av_dict_set(&protocolOptions, key, value, 0) }
                status = avio_open2(&format.pointee.pb, url, AVIO_FLAG_WRITE, &format.pointee.interrupt_callback, &protocolOptions)
                guard status >= 0 else { throw Self.error(status, "\(path): cannot connect") }
                ownsConnection = true
            }
        }
        if settings.strip {
            // No names or dates: the muxer's own (Lavf's version, Matroska's random UIDs) left out too.
            format.pointee.flags |= AVFMT_FLAG_BITEXACT
        } else {
            av_dict_set(&format.pointee.metadata, "encoder", "Kamera", 0)
        }
        if let fixed = SourceDate.fixed, !settings.strip {
            // SOURCE_DATE_EPOCH: the same bytes every run (no wall-clock date, no random
            // Matroska UIDs, no library versions), and that date as the creation time.
            format.pointee.flags |= AVFMT_FLAG_BITEXACT
            av_dict_set(&format.pointee.metadata, "creation_time", Self.isoDate(fixed), 0)
        }
        status = avformat_write_header(format, &muxerOptions)
        guard status >= 0 else { throw Self.error(status, file == nil ? "\(path): cannot start the stream" : "\(path): cannot write the \(container.rawValue) header") }
        headerWritten = true

        frame.pointee.format = pixelFormat.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        status = av_frame_get_buffer(frame, 0)
        guard status >= 0 else { throw Self.error(status, "\(path): out of memory for a \(width)x\(height) frame") }
        guard let scaler = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(width), Int32(height), pixelFormat,
                                          SWS_POINT, nil, nil, nil) else {
            throw OutputError("\(path): swscale cannot convert RGBA to \(pixelFormatName)")
        }
        self.scaler = scaler
        if planarColorSpace != nil, Self.readInPlace.contains(encoderName), let frame = av_frame_alloc() {
            frame.pointee.format = pixelFormat.rawValue
            frame.pointee.width = Int32(width)
            frame.pointee.height = Int32(height)
            inPlace = frame
        }
        if !isRGB {
            let matrix = sws_getCoefficients(space.matrix == .bt709 ? SWS_CS_ITU709 : SWS_CS_ITU601)
            _ = sws_setColorspaceDetails(scaler, matrix, 1, matrix, fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        }
    }

    deinit { close() }

    /// The libraries' own log lines would break Kamera's one-line messages;
    /// their errors reach the user through the status codes instead.
    private static let quietLibraries: Void = {
        av_log_set_level(AV_LOG_FATAL)
        // SVT-AV1 prints its configuration to stderr itself unless told otherwise (1: errors only).
        setenv("SVT_LOG", "1", 0)
    }()

    /// Converts and encodes one RGBA picture (top row first, `width * 4` bytes a row) at `pts` in `timeBase`.
    func encode(_ rgba: UnsafeRawBufferPointer, pts: Int64) throws {
        guard let frame else { return }
        try makeWritable(frame)
        var source: [UnsafePointer<UInt8>?] = [rgba.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var sourceStride: [Int32] = [Int32(width * 4), 0, 0, 0]
        withUnsafeMutablePointer(to: &frame.pointee.data) { data in
            withUnsafeMutablePointer(to: &frame.pointee.linesize) { lines in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                    lines.withMemoryRebound(to: Int32.self, capacity: 8) { strides in
                        _ = sws_scale(scaler, &source, &sourceStride, 0, Int32(height), planes, strides)
                    }
                }
            }
        }
        try send(frame, pts: pts)
    }

    /// Encodes one planar 4:2:0 picture in `planarColorSpace` (Y', Cb, Cr,
    /// each tight, as `YUVToYUV420` makes them) at `pts` in `timeBase`.
    func encode(planar: UnsafeRawBufferPointer, pts: Int64) throws {
        guard let frame, planarColorSpace != nil else { return }
        precondition(planar.count >= YUVToYUV420.frameSize(width: width, height: height))
        let chroma = (width: (width + 1) / 2, height: (height + 1) / 2)
        let y = planar.baseAddress!, u = y + width * height, v = u + chroma.width * chroma.height
        if let inPlace, let block = try wrapper(of: planar) {
            inPlace.pointee.buf.0 = block
            inPlace.pointee.data.0 = UnsafeMutablePointer(mutating: y.assumingMemoryBound(to: UInt8.self))
            inPlace.pointee.data.1 = UnsafeMutablePointer(mutating: u.assumingMemoryBound(to: UInt8.self))
            inPlace.pointee.data.2 = UnsafeMutablePointer(mutating: v.assumingMemoryBound(to: UInt8.self))
            (inPlace.pointee.linesize.0, inPlace.pointee.linesize.1, inPlace.pointee.linesize.2) = (Int32(width), Int32(chroma.width), Int32(chroma.width))
            let sent = Result { try send(inPlace, pts: pts) }
            inPlace.pointee.buf.0 = nil
            try sent.get()
            framesReadInPlace += 1
            if av_buffer_get_ref_count(block) > 1 {
                // The encoder kept the picture after all: copy from the next one on
                // (this memory stays the caller's until the encoder is closed).
                av_frame_free(&self.inPlace)
            }
            return
        }
        try makeWritable(frame)
        av_image_copy_plane(frame.pointee.data.0, frame.pointee.linesize.0, y.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(width), Int32(height))
        av_image_copy_plane(frame.pointee.data.1, frame.pointee.linesize.1, u.assumingMemoryBound(to: UInt8.self), Int32(chroma.width),
                            Int32(chroma.width), Int32(chroma.height))
        av_image_copy_plane(frame.pointee.data.2, frame.pointee.linesize.2, v.assumingMemoryBound(to: UInt8.self), Int32(chroma.width),
                            Int32(chroma.width), Int32(chroma.height))
        try send(frame, pts: pts)
    }

    /// The AVBuffer over the block of memory `planes` starts, made once.
    private func wrapper(of planes: UnsafeRawBufferPointer) throws -> UnsafeMutablePointer<AVBufferRef>? {
        let start = UnsafeMutableRawPointer(mutating: planes.baseAddress!)
        if let made = borrowed[start] { return made }
        guard let made = av_buffer_create(start.assumingMemoryBound(to: UInt8.self), planes.count, { _, _ in }, nil, AV_BUFFER_FLAG_READONLY) else {
            throw OutputError("\(path): out of memory for a frame")
        }
        borrowed[start] = made
        return made
    }

    private func makeWritable(_ frame: UnsafeMutablePointer<AVFrame>) throws {
        let status = av_frame_make_writable(frame)
        guard status >= 0 else { throw Self.error(status, "\(path): out of memory for a frame") }
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>, pts: Int64) throws {
        guard let codec else { return }
        // Never two frames at one time: a repeated timestamp moves on by one tick.
        frame.pointee.pts = max(pts, lastPTS &+ 1)
        lastPTS = frame.pointee.pts
        let status = avcodec_send_frame(codec, frame)
        guard status >= 0 else { throw Self.error(status, "\(path): the \(encoderName) encoder failed") }
        try drain()
    }

    /// Flushes the encoder, writes the container's trailer (index, duration) and frees everything.
    /// `soundEnd`: seconds of picture, which the sound is filled up to.
    func finish(soundEnd: Double = .infinity) throws {
        defer { close() }
        guard let codec, let format, headerWritten else { return }
        let status = avcodec_send_frame(codec, nil)
        guard status >= 0 else { throw Self.error(status, "\(path): the \(encoderName) encoder failed while finishing") }
        try drain()
        try writeHeld(until: nil)
        try audio?.finish(format, end: soundEnd)
        audio = nil
        // Everything in whole fragments first: a trailer cut short by a full disk is truncated away.
        if cuts { try cut() }
        let trailer = av_write_trailer(format)
        headerWritten = false
        guard trailer >= 0 else { throw Self.error(trailer, "\(path): cannot finish the file") }
        avio_flush(format.pointee.pb)
        if let error = format.pointee.pb?.pointee.error, error < 0 { throw Self.error(error, "\(path): cannot write") }
    }

    /// Closes everything without writing more to the file (after a failure:
    /// what is cut off after `whole` is the caller's to truncate).
    func abandon() {
        headerWritten = false
        close()
    }

    /// Adds sound captured `start` seconds after the first frame (see `AudioTrack.append`).
    func appendSound(_ samples: UnsafeBufferPointer<Int16>, frames: Int, start: Double, end: Double) throws {
        guard let audio, let format else { return }
        try audio.append(samples, frames: frames, start: start, end: end, to: format)
    }

    private func drain() throws {
        guard let codec, let format, let packet else { return }
        try Self.writePackets(of: codec, through: packet, to: stream, in: format, what: "\(path): the \(encoderName) encoder", write: hold)
    }

    /// Holds a picture packet until the next one comes, which gives its true
    /// duration: a fragment's last sample would otherwise get a guessed one,
    /// and every later frame in an MP4 would move by the difference.
    private func hold(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        try writeHeld(until: packet.pointee.dts)
        av_packet_move_ref(held, packet)
        holding = true
    }

    /// Writes the packet held, lasting until `next` (the next packet's time)
    /// or, at the end, as long as the encoder said; first cuts the fragment
    /// when this picture is at or past the next cut.
    private func writeHeld(until next: Int64?) throws {
        guard holding, let held, let format else { return }
        holding = false
        defer { av_packet_unref(held) }
        if let next, next > held.pointee.dts { held.pointee.duration = next - held.pointee.dts }
        let timeBase = av_q2d(stream.pointee.time_base)
        let seconds = Double(held.pointee.dts) * timeBase
        if cuts, videoPacketsWritten > 0, seconds >= nextCut {
            try cut()
            nextCut = seconds + Self.cutSeconds
        }
        let status = Self.mux(held, into: format)
        guard status >= 0 else { throw Self.error(status, "\(path): the \(encoderName) encoder: cannot write") }
        videoPacketsWritten += 1
        writtenEnd = max(writtenEnd, Double(held.pointee.pts + max(held.pointee.duration, 0)) * timeBase)
    }

    /// Ends the fragment (cluster) being written, flushes it to the file, and
    /// notes the file's length and the frames in it: a reader of the file
    /// up to here decodes every one of them.
    private func cut() throws {
        guard let format else { return }
        let status = av_write_frame(format, nil)
        guard status >= 0 else { throw Self.error(status, "\(path): cannot write") }
        avio_flush(format.pointee.pb)
        if let error = format.pointee.pb?.pointee.error, error < 0 { throw Self.error(error, "\(path): cannot write") }
        var info = stat()
        let length = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : avio_tell(format.pointee.pb)
        whole = WholePart(bytes: length, frames: videoPacketsWritten, seconds: writtenEnd)
    }

    /// Takes every packet `codec` has ready and writes it, in `stream`'s time
    /// base, straight to the muxer (no interleaving queue, so that every
    /// packet handed over is in the file at the next cut); the picture's and
    /// the sound's encoders alike. `write`, when given, takes each packet instead.
    static func writePackets(of codec: UnsafeMutablePointer<AVCodecContext>, through packet: UnsafeMutablePointer<AVPacket>,
                             to stream: UnsafeMutablePointer<AVStream>, in format: UnsafeMutablePointer<AVFormatContext>, what: String,
                             write: ((UnsafeMutablePointer<AVPacket>) throws -> Void)? = nil) throws {
        while true {
            let status = avcodec_receive_packet(codec, packet)
            if status == kamera_averror(EAGAIN) || status == kamera_averror_eof() { return }
            guard status >= 0 else { throw error(status, "\(what) failed") }
            av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            if let write {
                try write(packet)
                continue
            }
            let written = mux(packet, into: format)
            av_packet_unref(packet)
            guard written >= 0 else { throw error(written, "\(what): cannot write") }
        }
    }

    /// Hands `packet` to the muxer: straight through into Kamera's own files
    /// (which libavformat writes through custom I/O); through libavformat's
    /// interleaving queue into a network stream, whose muxers (FLV) refuse a
    /// packet earlier than one already sent, such as the sound encoder's
    /// first, which starts before the picture by the codec's priming.
    static func mux(_ packet: UnsafeMutablePointer<AVPacket>, into format: UnsafeMutablePointer<AVFormatContext>) -> Int32 {
        format.pointee.flags & AVFMT_FLAG_CUSTOM_IO != 0 ? av_write_frame(format, packet) : av_interleaved_write_frame(format, packet)
    }

    private func close() {
        if headerWritten, let format { av_write_trailer(format) }
        headerWritten = false
        if let scaler { sws_freeContext(scaler) }
        scaler = nil
        av_frame_free(&frame)
        av_packet_free(&packet)
        av_packet_free(&held)
        avcodec_free_context(&codec)
        // After the encoder, which may have held a reference to the last of them.
        av_frame_free(&inPlace)
        for wrapper in borrowed.values {
            var reference: UnsafeMutablePointer<AVBufferRef>? = wrapper
            av_buffer_unref(&reference)
        }
        borrowed.removeAll()
        audio = nil
        if ownsConnection, let format { avio_closep(&format.pointee.pb) }
        ownsConnection = false
        if let format { avformat_free_context(format) }
        format = nil
        kamera_avio_free(&io)
    }

    /// The Y'CbCr color space Kamera writes `format` in at `height`: BT.709 from
    /// 720 lines up, BT.601 below; full range for the JPEG formats, limited otherwise.
    private static func yuvColorSpace(_ format: AVPixelFormat, height: Int) -> YUVColorSpace {
        YUVColorSpace(matrix: height >= 720 ? .bt709 : .bt601,
                      range: format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ444P ? .full : .limited)
    }

    /// The color space of the planar 4:2:0 frames `encoder` (of `codec`) will
    /// take at `height` (see `planarColorSpace`), before it is opened.
    static func planarColorSpace(encoder name: String, codec: VideoCodec, height: Int) -> YUVColorSpace? {
        guard let encoder = avcodec_find_encoder_by_name(name),
              let format = try? pixelFormat(for: encoder, codec: codec, path: ""),
              format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P else { return nil }
        return yuvColorSpace(format, height: height)
    }

    /// The encoder's pixel format for RGBA pictures: 4:2:0 for lossy codecs
    /// (what players take), planar RGB for FFV1 (lossless, RGB stays RGB).
    private static func pixelFormat(for encoder: UnsafePointer<AVCodec>, codec: VideoCodec, path: String) throws -> AVPixelFormat {
        var offered: [AVPixelFormat] = []
        if var p = encoder.pointee.pix_fmts {
            while p.pointee != AV_PIX_FMT_NONE {
                offered.append(p.pointee)
                p += 1
            }
        }
        let preferred: [AVPixelFormat] = codec == .ffv1 ? [AV_PIX_FMT_GBRP, AV_PIX_FMT_BGR0]
            : codec == .mjpeg ? [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUV420P] : [AV_PIX_FMT_YUV420P, AV_PIX_FMT_NV12]
        if offered.isEmpty { return preferred[0] }
        if let format = preferred.first(where: offered.contains) { return format }
        let names = offered.compactMap { av_get_pix_fmt_name($0).map { String(cString: $0) } }.joined(separator: ", ")
        throw OutputError("\(path): the \(String(cString: encoder.pointee.name)) encoder takes only \(names) (hardware surfaces), which Kamera does not feed yet; use a software encoder")
    }

    /// `--crf`, `--preset` and the live defaults, in each encoder's own option names.
    static func encoderOptions(_ encoder: String, settings: VideoSettings, live: Bool, width: Int, height: Int) -> [(String, String)] {
        var options: [(String, String)] = []
        switch encoder {
        case "libx264", "libx265":
            options.append(("preset", settings.preset ?? "veryfast"))
            // Live: no frames held back for look-ahead, so what a cut flushes is what was captured.
            if live { options.append(("tune", "zerolatency")) }
            if let crf = settings.crf, settings.bitrate == nil { options.append(("crf", String(crf))) }
            if encoder == "libx265" { options.append(("x265-params", "log-level=error")) }
        case "libvpx-vp9":
            options.append(("deadline", live ? "realtime" : "good"))
            if live { options.append(("lag-in-frames", "0")) }
            options.append(("cpu-used", settings.preset ?? (live ? "8" : "5")))
            options.append(("row-mt", "1"))
            if settings.bitrate == nil { options.append(("crf", String(settings.crf ?? 32))) }
        case "libaom-av1":
            options.append(("cpu-used", settings.preset ?? "8"))
            options.append(("usage", live ? "realtime" : "good"))
            if live { options.append(("lag-in-frames", "0")) }
            options.append(("row-mt", "1"))
            if settings.bitrate == nil { options.append(("crf", String(settings.crf ?? 32))) }
        case "libsvtav1":
            options.append(("preset", settings.preset ?? "10"))
            if let crf = settings.crf, settings.bitrate == nil { options.append(("crf", String(crf))) }
        case "librav1e":
            options.append(("speed", settings.preset ?? "10"))
            if let crf = settings.crf, settings.bitrate == nil { options.append(("qp", String(crf * 4))) }
        case "mjpeg":
            // mjpeg is steered by qmin/qmax as a fixed quantiser.
            let q = String(settings.crf ?? 3)
            options.append(("qmin", q))
            options.append(("qmax", q))
        case "ffv1":
            options.append(("level", "3"))
            options.append(("slices", String(ffv1Slices(width: width, height: height))))
            options.append(("slicecrc", "1"))
        default:
            if let preset = settings.preset { options.append(("preset", preset)) }
            if let crf = settings.crf, settings.bitrate == nil { options.append(("qp", String(crf))) }
        }
        return options
    }

    /// FFV1's slices for a `width` x `height` RGB picture: 4 (encoded side by
    /// side) where each slice stays within FFV1's bound on a slice's samples
    /// (its area times 9 bits times 3 planes at most 8 << 24), more where a
    /// picture is larger (9 at 8192x4352), and 1 for a picture less than 2
    /// pixels on a side, which cannot be split. The encoder refused others
    /// with "Function not implemented".
    static func ffv1Slices(width: Int, height: Int) -> Int {
        guard min(width, height) >= 2 else { return 1 }
        // The grids FFV1 takes: v rows of h columns, v <= h < 2v.
        for rows in 2...32 {
            for columns in rows..<(2 * rows) where rows * columns <= 256 {
                let sliceArea = ((width + columns - 1) / columns) * ((height + rows - 1) / rows)
                if sliceArea * 9 * 3 <= 8 << 24 && (rows * columns >= 4) { return rows * columns }
            }
        }
        return 4
    }

    /// Fragmented MP4/MOV and Matroska, their fragments and clusters cut by
    /// Kamera (`cut()`); with `--faststart`, one plain MP4 whose index is moved first at the end.
    static func muxerOptions(_ container: VideoContainer, settings: VideoSettings) -> [(String, String)] {
        var options = [("flush_packets", "1")]
        if container.isISO {
            options.append(("movflags", settings.faststart ? "+faststart" : "+frag_custom+empty_moov+default_base_moof"))
        } else {
            // Kamera cuts every half second; the muxer's own limits only beyond that.
            options.append(("cluster_time_limit", "5000"))
        }
        return options
    }

    static func error(_ status: Int32, _ what: String, remedy: String? = nil) -> OutputError {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(status, &buffer, buffer.count)
        return OutputError("\(what): \(String(cString: buffer))" + (remedy.map { "; \($0)" } ?? ""))
    }
}

extension VideoEncoder {
    /// `2023-11-14T22:13:20.000000Z`: a recording's creation time as libavformat takes it.
    static func isoDate(_ seconds: Double) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.000000Z", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
