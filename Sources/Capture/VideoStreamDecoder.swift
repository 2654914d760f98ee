import CFFmpeg
import Pixels

/// An H.264 or HEVC camera stream decoded by libavcodec, one access unit per
/// V4L2 buffer (as UVC cameras and v4l2loopback give them), into NV12:
/// straight from 4:2:0 streams, through swscale from others. Low-delay
/// decoding: a picture comes out of the buffer it came in, and frames before
/// the stream's first key frame give none.
public final class VideoStreamDecoder: FrameDecoder {
    public let format: CompressedFormat
    private let width: Int, height: Int
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var picture: UnsafeMutablePointer<AVFrame>?
    private var scaler: OpaquePointer?
    /// How to read the last picture's Y'CbCr, from the stream (BT.601 limited unless it says otherwise).
    public private(set) var colorSpace: YUVColorSpace?
    /// Each buffer's bytes with the zeroed tail libavcodec reads past the end.
    private var padded = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// True once a picture came out.
    private var started = false

    public init(_ format: CompressedFormat, width: Int, height: Int) throws {
        self.format = format
        (self.width, self.height) = (width, height)
        av_log_set_level(AV_LOG_FATAL)
        guard let codec = avcodec_find_decoder(format == .h264 ? AV_CODEC_ID_H264 : AV_CODEC_ID_HEVC) else {
            throw CaptureError("this FFmpeg has no \(format.rawValue) decoder; install Debian's libavcodec59")
        }
        guard let context = avcodec_alloc_context3(codec), let packet = av_packet_alloc(), let picture = av_frame_alloc() else {
            throw CaptureError("out of memory for a \(format.rawValue) decoder")
        }
        (self.context, self.packet, self.picture) = (context, packet, picture)
        context.pointee.flags |= AV_CODEC_FLAG_LOW_DELAY
        // Slice threads only: frame threads would hold pictures back by a frame per thread.
        context.pointee.thread_type = FF_THREAD_SLICE
        context.pointee.thread_count = 0
        // A stream that claims much larger pictures than the camera's mode is refused before anything is
        // allocated for them. libavcodec checks its buffers' padded sizes against this, so it leaves room.
        context.pointee.max_pixels = Int64(width + 256) * Int64(height + 256)
        let e = avcodec_open2(context, codec, nil)
        guard e >= 0 else { throw CaptureError("cannot open the \(format.rawValue) decoder: \(Self.message(e))") }
    }

    deinit {
        avcodec_free_context(&context)
        av_packet_free(&packet)
        av_frame_free(&picture)
        sws_freeContext(scaler)
        padded.deallocate()
    }

    public func decodeFrame(_ data: UnsafeRawBufferPointer, into target: FrameBuffer) throws -> Bool {
        guard let context, let packet, let picture else { return false }
        precondition(target.format == .nv12 && target.width == width && target.height == height)
        let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        if padded.count < data.count + padding {
            padded.deallocate()
            padded = .allocate(byteCount: data.count + padding, alignment: 64)
        }
        padded.baseAddress!.copyMemory(from: data.baseAddress!, byteCount: data.count)
        (padded.baseAddress! + data.count).initializeMemory(as: UInt8.self, repeating: 0, count: padding)
        packet.pointee.data = padded.baseAddress!.assumingMemoryBound(to: UInt8.self)
        packet.pointee.size = Int32(data.count)
        var e = avcodec_send_packet(context, packet)
        if e >= 0 || e == kamera_averror(EAGAIN) { e = avcodec_receive_frame(context, picture) }
        if e == kamera_averror(EAGAIN) { return false }
        // Before the first picture, the frames of a stream joined mid-way cannot decode: not damage.
        guard e >= 0 else {
            if !started { return false }
            throw CaptureError("a damaged \(format.rawValue) frame: \(Self.message(e))")
        }
        started = true
        defer { av_frame_unref(picture) }
        guard Int(picture.pointee.width) == width, Int(picture.pointee.height) == height else {
            throw CaptureError("the \(format.rawValue) stream's pictures are \(picture.pointee.width)x\(picture.pointee.height), not the camera's \(width)x\(height)")
        }
        // Full-range 4:2:0 is copied as it is (its range goes with the frame's color space), not squeezed by swscale.
        let full = picture.pointee.format == AV_PIX_FMT_YUVJ420P.rawValue || picture.pointee.color_range == AVCOL_RANGE_JPEG
        let bt709 = picture.pointee.colorspace == AVCOL_SPC_BT709
        colorSpace = YUVColorSpace(matrix: bt709 ? .bt709 : .bt601, range: full ? .full : .limited)
        let source = picture.pointee.format == AV_PIX_FMT_YUVJ420P.rawValue ? AV_PIX_FMT_YUV420P : AVPixelFormat(picture.pointee.format)
        scaler = sws_getCachedContext(scaler, Int32(width), Int32(height), source,
                                      Int32(width), Int32(height), AV_PIX_FMT_NV12, SWS_POINT, nil, nil, nil)
        guard let scaler else { throw CaptureError("cannot convert \(format.rawValue) pictures of pixel format \(picture.pointee.format) to NV12") }
        var planes: [UnsafeMutablePointer<UInt8>?] = [target.mutablePlane(0).baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                      target.mutablePlane(1).baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil]
        var strides: [Int32] = [Int32(target.planes[0].bytesPerRow), Int32(target.planes[1].bytesPerRow), 0, 0]
        withUnsafeMutablePointer(to: &picture.pointee.data) { data in
            withUnsafeMutablePointer(to: &picture.pointee.linesize) { lines in
                data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { source in
                    lines.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                        _ = sws_scale(scaler, source, sourceStrides, 0, Int32(height), &planes, &strides)
                    }
                }
            }
        }
        return true
    }

    private static func message(_ e: Int32) -> String {
        var text = [CChar](repeating: 0, count: 128)
        av_strerror(e, &text, text.count)
        return String(cString: text)
    }
}
