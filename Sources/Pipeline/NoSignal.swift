import Capture
import Foundation
import GPU
import Lifecycle
import Messages
import Pixels
import Render

/// `--persistent` (on by default with a virtual camera): a camera lost
/// mid-run (unplugged, its driver unbound, or silent for `silence` seconds)
/// does not end the run. Every output keeps the run's rate with a no-signal
/// picture, the last picture dimmed or `--fallback-image` filling the frame,
/// while the camera is opened again by its path once a second; its first
/// frame ends the no-signal picture (ustreamer's `--persistent`, OBS's
/// reconnecting sources). Used on the render thread only.
public final class NoSignal {
    /// What the frame loop does next.
    enum Step {
        /// A camera frame: drawn as any.
        case frame(Frame)
        /// The no-signal picture, drawn by `renderer` (filters, crop and zoom are already in it).
        case picture(Frame)
        /// Nothing yet: ask again (after a short sleep, when the picture is not due).
        case wait(Double)
    }

    /// The still shown instead of the dimmed last picture, RGBA.
    let fallback: FrameBuffer?
    /// How long a camera may send nothing before it counts as lost.
    let silence: Double
    /// How often a lost camera is opened again.
    let retryInterval = 1.0
    /// The share of its brightness the last picture keeps.
    static let dimming: UInt16 = 96
    /// Hears when the camera is lost and when it is back.
    var note: (String) -> Void = { _ in }
    /// Frames of the no-signal picture sent so far, the losses, and the last
    /// picture's frames sent again while the camera was late.
    public private(set) var frames = 0, losses = 0, repeats = 0

    private(set) var renderer: FrameRenderer?
    /// Counts the pictures made: the frames between two changes show the same one.
    private(set) var pictureVersion = 0
    private var rendererSize = (width: 0, height: 0)
    private var picture: FrameBuffer?
    /// When the camera's last frame was due; nil while it is on time.
    private var lateSince: Double?
    private var showing = false
    private var lastTry = 0.0, due = 0.0
    private var sequence: UInt64 = 0
    /// The camera's measured rate when it was lost (the run's without one).
    private var rate = 30.0

    /// `fallback`: a PNG or JPEG still, read now so that a bad one is an
    /// error before the run starts.
    public init(fallback path: String?, silence: Double = 1) throws {
        self.silence = silence
        fallback = try path.map { path in
            let source = try ImageSource(path: path)
            guard let frame = try source.nextFrame(), frame.format == .rgba else {
                throw CaptureError("\(path): holds no picture; give a PNG or JPEG still")
            }
            let copy = FrameBuffer(format: .rgba, width: frame.width, height: frame.height)
            for row in 0..<frame.height {
                let from = frame.planes[0].bytes.baseAddress! + row * frame.planes[0].bytesPerRow
                copy.allBytes.baseAddress!.advanced(by: row * frame.width * 4).copyMemory(from: from, byteCount: frame.width * 4)
            }
            return copy
        }
    }

    /// True while the no-signal picture is shown.
    public var isShowing: Bool { showing }

    /// The next step of a live camera's run: its frame; when it is late by
    /// three frame intervals its last picture again, at its rate; after
    /// `silence` seconds, or at once when the camera fails, the no-signal
    /// picture, the camera opened again each second until a frame comes.
    func next(session: SourceSession, main: FrameRenderer, now: Double) throws -> Step {
        if lateSince == nil {
            if let measured = session.source?.captureStatistics?.measuredRate, measured > 0 { rate = min(measured, 240) }
            do {
                if let frame = try session.nextFrame(waiting: Int(min(max(3 / rate, 0.2), silence) * 1000)) {
                    if renderer == nil { try prepare(like: main, size: main.outputSize(for: frame)) }
                    return .frame(frame)
                }
                if StopSignal.isRequested { return .wait(0) }
                try late(main: main, now: now)
            } catch let error as CaptureError {
                try late(main: main, now: now)
                try lose("\(error)", session: session, main: main, now: now, releasing: true)
            }
        }
        if !showing, let since = lateSince, now - since >= silence {
            // Silent, not gone: kept open, its next frame ends the no-signal picture.
            try lose("\(session.configuration.camera ?? "the camera"): no frame in " + String(format: "%.1f s", silence),
                     session: session, main: main, now: now, releasing: false)
        }
        if showing && now - lastTry >= retryInterval {
            lastTry = now
            if session.source == nil { try? session.reopen() }
        }
        if session.source != nil {
            do {
                if let frame = try session.nextFrame(waiting: 0) {
                    if showing {
                        note(String(format: "%@: back after %.1f s of no signal", session.configuration.camera ?? "the camera", now - (lateSince ?? now)))
                    }
                    (lateSince, showing) = (nil, false)
                    return .frame(frame)
                }
            } catch let error as CaptureError {
                if showing { session.release() } else { try lose("\(error)", session: session, main: main, now: now, releasing: true) }
            }
        }
        // The clock read again: a release or a reopen above may have taken a while.
        let now = MonotonicClock.seconds
        if now < due { return .wait(due - now) }
        // Late (a slow reopen, a stall): the next one interval from now, no catching up.
        due = max(due, now) + 1 / rate
        sequence += 1
        if showing { frames += 1 } else { repeats += 1 }
        return .picture(picture!.frame(sequence: sequence, timestamp: UInt64(now * 1e9)))
    }

    /// The camera is late: its last picture is sent again at its rate, as it is.
    private func late(main: FrameRenderer, now: Double) throws {
        let size = main.lastOutputSize ?? main.settings.outputSize ?? (1280, 720)
        picture = makePicture(main: main, width: size.width, height: size.height, dimming: nil)
        pictureVersion += 1
        if renderer == nil || rendererSize != size { try prepare(like: main, size: size) }
        (lateSince, due) = (now, MonotonicClock.seconds)
    }

    /// The camera is lost: the no-signal picture made, the device released when it failed.
    private func lose(_ why: String, session: SourceSession, main: FrameRenderer, now: Double, releasing: Bool) throws {
        let size = main.lastOutputSize ?? main.settings.outputSize ?? (1280, 720)
        picture = fallback ?? makePicture(main: main, width: size.width, height: size.height, dimming: Self.dimming)
        pictureVersion += 1
        if releasing { session.release() }
        losses += 1
        showing = true
        lastTry = now
        note("\(why); sending the no-signal picture" + (releasing ? " and opening the camera again each second" : " until it sends again"))
    }

    /// The last picture, dimmed to `dimming` of 255 (nil: as it is), in the
    /// picture's own memory when it has the size; a dark gray before any picture.
    private func makePicture(main: FrameRenderer, width: Int, height: Int, dimming: UInt16?) -> FrameBuffer {
        let reused = picture.flatMap { $0 !== fallback && $0.width == width && $0.height == height ? $0 : nil }
        let target = reused ?? FrameBuffer(format: .rgba, width: width, height: height)
        let bytes = target.allBytes
        if main.lastOutputSize != nil, let last = try? main.readBack(), last.count == bytes.count {
            guard let dimming else {
                bytes.copyMemory(from: last)
                return target
            }
            for i in stride(from: 0, to: last.count, by: 4) {
                for c in 0..<3 { bytes[i + c] = UInt8(UInt16(last[i + c]) * dimming / 255) }
                bytes[i + 3] = 255
            }
        } else {
            for i in stride(from: 0, to: bytes.count, by: 4) { (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]) = (24, 24, 24, 255) }
        }
        return target
    }

    /// Makes the renderer of the picture and draws with it once, at the run's
    /// start: its shaders are compiled then, not when the camera is lost (a
    /// second's stall on a slow software renderer).
    private func prepare(like main: FrameRenderer, size: (width: Int, height: Int)) throws {
        let renderer = try plainRenderer(like: main, width: size.width, height: size.height)
        let black = FrameBuffer(format: .rgba, width: 2, height: 2)
        _ = try renderer.draw(black.frame(sequence: 0, timestamp: 0), index: 0)
        (self.renderer, rendererSize) = (renderer, size)
        if lateSince == nil { rate = main.settings.rate }
    }

    /// Draws the picture at the output's size and nothing more: no filter,
    /// crop or zoom, which the dimmed picture has had; the still is fitted to
    /// fill the frame, cropped at its edges.
    private func plainRenderer(like main: FrameRenderer, width: Int, height: Int) throws -> FrameRenderer {
        var settings = RenderSettings(crop: .none, mode: .preview(PreviewLayout(fit: .cover)), outputSize: (width, height), rate: main.settings.rate)
        settings.upload = .copy
        let renderer = try FrameRenderer(context: main.openContext(), settings: settings)
        renderer.drawsEveryFrame = main.drawsEveryFrame
        return renderer
    }
}
