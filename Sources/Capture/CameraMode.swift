import Foundation
import Messages
import Pixels

/// A chosen capture mode.
public struct CameraMode: Equatable, Sendable {
    /// How Kamera reads the camera's format: as it is, repacked, decoded or through libv4l.
    public let reading: InputFormat
    /// The camera's V4L2 code for it, as the driver lists it ("YUYV", "Y16 ").
    public let fourcc: String
    /// The layout frames are handed on in once repacked or decoded
    /// (`handedOn(convertsOnGPU:)` for frames the GPU reads as they are).
    public let format: PixelFormat
    /// The compressed format, decoded on the CPU; nil for the others.
    public let compressed: CompressedFormat?
    /// The camera's format when Kamera does not read it natively (repacked into
    /// `format`, or read as it is by the GPU: `isReadInPlace`); nil for the others.
    public let repacked: RepackedFormat?
    /// Converted to RGB24 by libv4lconvert, the fallback for formats Kamera does not read itself.
    public let viaLibV4L: Bool
    public var isCompressed: Bool { compressed != nil }
    /// Frames reach Kamera in memory of its own (decoded, repacked or converted), not in the driver's buffers.
    public var isConverted: Bool { isCompressed || repacked != nil || viaLibV4L }
    /// Frames the GPU's conversion reads as the driver gave them
    /// (`RepackedFormat.readOnGPU`: other orders of packed 4:2:2, NV21, NV16,
    /// NV61, planar YUV, RGB in other byte orders, RGB565, 10- to 16-bit gray,
    /// raw Bayer, MIPI-packed too), when `convertsOnGPU`: handed on in the driver's buffers,
    /// like a native format, with only a Bayer frame's statistics read on the CPU.
    public func isReadInPlace(convertsOnGPU: Bool) -> Bool {
        convertsOnGPU && repacked?.readOnGPU != nil
    }
    /// Frames reach Kamera in memory of its own rather than in the driver's buffers.
    public func isConverted(convertsOnGPU: Bool) -> Bool { isConverted && !isReadInPlace(convertsOnGPU: convertsOnGPU) }
    /// The layout frames are handed on in, as they are or repacked.
    public func handedOn(convertsOnGPU: Bool) -> PixelFormat {
        isReadInPlace(convertsOnGPU: convertsOnGPU) ? repacked!.readOnGPU! : format
    }
    public var width: Int
    public var height: Int
    /// nil leaves the rate as it is.
    public var rate: Double?
    /// What the user should know of the choice (`--fps max` finding nothing above 30 fps).
    public var note: String?

    public init(reading: InputFormat, fourcc: String, width: Int, height: Int, rate: Double?) {
        // What follows from `reading` is worked out once, here: Swift 6.3.1's
        // optimizer crashes (an ownership error) where CameraSource matched
        // the enum on each use.
        self.reading = reading
        self.fourcc = fourcc
        format = reading.decoded
        switch reading {
        case .compressed(let c): (compressed, repacked) = (c, nil)
        case .repacked(let f): (compressed, repacked) = (nil, f)
        case .native, .libV4L: (compressed, repacked) = (nil, nil)
        }
        viaLibV4L = reading.isLibV4L
        self.width = width
        self.height = height
        self.rate = rate
    }

    /// Picks the mode for `request` from what the camera offers.
    public static func choose(_ request: CameraRequest, from formats: [CameraFormat], current: (width: Int, height: Int),
                              path: String = "camera") throws -> CameraMode {
        var usable = formats.filter { f in f.reading != nil && (request.format == nil || f.reading == request.format) }
        // The code asked for (XR24) is taken over another code of the same layout (BGR4).
        if case .repacked(let wanted) = request.format, usable.contains(where: { $0.fourcc == wanted.fourcc }) {
            usable.removeAll { $0.fourcc != wanted.fourcc }
        }
        // Left to choose, prefer color: GREY is cheapest to upload but loses it.
        if request.format == nil, usable.contains(where: { $0.pixelFormat != .grey }) {
            usable.removeAll { $0.pixelFormat == .grey }
        }
        guard !usable.isEmpty else {
            let offered = formats.map { $0.fourcc.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
            switch request.format {
            case .native(let wanted):
                throw CaptureError("\(path) does not offer \(wanted.name) (\(wanted.v4l2Codes.joined(separator: "/"))); it offers \(offered)")
            case .repacked(let wanted):
                throw CaptureError("\(path) does not offer \(wanted.name) (\(wanted.fourcc.filter { $0 != " " })); it offers \(offered)")
            case .compressed(let wanted):
                throw CaptureError("\(path) does not offer \(wanted.rawValue.uppercased()); it offers \(offered)")
            case .libV4L(let wanted):
                let viaLibV4L = formats.filter(\.viaLibV4L).map { $0.fourcc.trimmingCharacters(in: .whitespaces) }
                throw CaptureError("\(path) offers no \(wanted) that libv4l converts; it converts \(viaLibV4L.isEmpty ? "none of its formats" : viaLibV4L.joined(separator: ", ")) (the camera offers \(offered))")
            case nil: break
            }
            throw CaptureError("\(path) offers no format Kamera reads (\(offered)); Kamera reads \(PixelFormat.validNames)")
        }
        let size = request.size ?? current
        func fits(_ s: CameraSize) -> Bool { request.size == nil && request.rate == .max || (s.width == size.width && s.height == size.height) }
        var candidates: [(CameraFormat, CameraSize)] = []
        for f in usable { for s in f.sizes where fits(s) { candidates.append((f, s)) } }
        if candidates.isEmpty {
            let sizes = Self.sizeList(usable.flatMap(\.sizes))
            throw CaptureError("\(path) does not offer \(size.width)x\(size.height)\(request.format.map { " in \($0.name)" } ?? ""); sizes: \(sizes)")
        }
        func cost(_ f: CameraFormat) -> Double { f.reading!.cost }
        func make(_ f: CameraFormat, _ s: CameraSize, _ rate: Double?) -> CameraMode {
            CameraMode(reading: f.reading!, fourcc: f.fourcc, width: s.width, height: s.height, rate: rate)
        }
        let cheapest: ((CameraFormat, CameraSize), (CameraFormat, CameraSize)) -> Bool = { cost($0.0) < cost($1.0) }
        switch request.rate {
        case .max:
            let best = candidates.max { a, b in
                let ra = a.1.rates.first ?? 0, rb = b.1.rates.first ?? 0
                if ra != rb { return ra < rb }
                if a.1.width * a.1.height != b.1.width * b.1.height { return a.1.width * a.1.height < b.1.width * b.1.height }
                return cheapest(b, a)
            }!
            let rate = best.1.rates.first ?? 0
            var mode = make(best.0, best.1, rate)
            if rate <= 30 {
                mode.note = "\(Setting.fps) max: \(path) offers nothing faster than \(formatRate(rate)) fps; running at \(formatRate(rate)) fps, \(best.1.width)x\(best.1.height) \(best.0.fourcc)"
            }
            return mode
        case .fps(let fps):
            let withRate = candidates.filter { $0.1.rates.isEmpty || $0.1.rates.contains { abs($0 - fps) < 0.01 } }
            guard let chosen = withRate.sorted(by: cheapest).first else {
                let rates = Set(candidates.flatMap(\.1.rates)).sorted(by: >).map(formatRate).joined(separator: ", ")
                throw CaptureError("\(path) does not offer \(formatRate(fps)) fps at \(size.width)x\(size.height); rates: \(rates)")
            }
            return make(chosen.0, chosen.1, fps)
        case .current:
            let chosen = candidates.sorted(by: cheapest).first!
            return make(chosen.0, chosen.1, nil)
        }
    }

    /// Sizes as "320x180, 640x480, 1280x720": each once, smallest first.
    static func sizeList(_ sizes: [CameraSize]) -> String {
        var seen = Set<String>()
        let ordered = sizes.sorted { a, b in
            a.width * a.height != b.width * b.height ? a.width * a.height < b.width * b.height : a.width < b.width
        }
        return ordered.map { "\($0.width)x\($0.height)" }.filter { seen.insert($0).inserted }.joined(separator: ", ")
    }

    /// A rate as people write it: 30, 12.5.
    public static func formatRate(_ r: Double) -> String {
        r == r.rounded() ? String(Int(r)) : String(format: "%.2f", r)
    }
}
