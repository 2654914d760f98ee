import Messages
import Pixels

/// Where a region-limited filter applies: a rectangle (`@x,y,w,h~F`), each
/// value in pixels of the cropped frame (`120`) or in percent of its width or
/// height (`25%`), or the faces `--detect faces` finds in each frame
/// (`@faces~F`), each a rectangle of its own; with a soft edge `feather`
/// pixels wide inside each rectangle. After `@!` the filter applies
/// everywhere but there (`blur=8@!faces`: the background blurred, the faces
/// left sharp; no face found, the whole picture filtered).
public struct FilterRegion: Equatable, Sendable {
    /// A length in pixels or in percent of the frame's side.
    public enum Length: Equatable, Sendable {
        case pixels(Int)
        case percent(Float)

        func resolved(_ side: Int) -> Float {
            switch self {
            case .pixels(let n): Float(n)
            case .percent(let p): p / 100 * Float(side)
            }
        }

        var text: String {
            switch self {
            case .pixels(let n): "\(n)"
            case .percent(let p): "\(FilterValue.format(p))%"
            }
        }
    }

    public var x: Length
    public var y: Length
    public var width: Length
    public var height: Length
    /// Pixels over which the filter fades in, inside the rectangle; 0 for a hard edge.
    public var feather: Float
    /// `@faces`: the rectangles are the frame's faces; x, y, width and height are unused.
    public var followsFaces = false
    /// `@!...`: the filter applies outside the rectangles, not inside.
    public var inverted = false

    /// `@faces~F`.
    public static func faces(feather: Float = 0) -> FilterRegion {
        var region = FilterRegion(x: .pixels(0), y: .pixels(0), width: .percent(100), height: .percent(100), feather: feather)
        region.followsFaces = true
        return region
    }

    public init(x: Length, y: Length, width: Length, height: Length, feather: Float = 0) {
        (self.x, self.y, self.width, self.height, self.feather) = (x, y, width, height, feather)
    }

    /// Parses `x,y,w,h`, `x,y,w,h~F`, `faces` or `faces~F`, each inverted by a
    /// leading `!`; `filter` is the filter's text, for messages.
    public init(parsing text: String, filter: String) throws {
        if text.hasPrefix("!") {
            guard !text.dropFirst().hasPrefix("!") else {
                throw FilterError("\(filter)@\(excerpt(text)): one '!' inverts a region; use \(filter)@!faces for everything but the faces")
            }
            try self.init(parsing: String(text.dropFirst()), filter: filter)
            inverted = true
            return
        }
        let parts = text.split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        if parts[0].lowercased().hasPrefix("faces") {
            guard parts[0].lowercased() == "faces" else {
                throw FilterError("\(filter)@\(excerpt(text)): not a region; use \(filter)@faces for the faces \(Setting.detect) faces finds, or \(filter)@faces~8 for a soft edge")
            }
            self = .faces(feather: try Self.feather(parts, text: text, filter: filter))
            return
        }
        let example = "e.g. \(filter)@100,50,320,240 (pixels), \(filter)@25%,25%,50%,50% (percent of the frame) or \(filter)@100,50,320,240~16 (a soft edge of 16 pixels)"
        let values = parts[0].split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard values.count == 4 else {
            throw FilterError("\(filter)@\(excerpt(text)): a region needs four values x,y,w,h; \(example)")
        }
        let names = ["x", "y", "width", "height"]
        let lengths = try zip(values, names).map { value, name -> Length in
            if value.hasSuffix("%") {
                guard let p = Float(value.dropLast()), (0...100).contains(p) else {
                    throw FilterError("\(filter)@\(excerpt(text)): the \(name) \(excerpt(value)) must be a percentage from 0% to 100%")
                }
                return .percent(p)
            }
            guard let n = Int(value), (0...FrameLimits.maxSide).contains(n) else {
                throw FilterError("\(filter)@\(excerpt(text)): the \(name) \(excerpt(value)) must be a whole number of pixels from 0 to \(FrameLimits.maxSide), or a percentage such as 25%")
            }
            return .pixels(n)
        }
        for (length, name) in zip(lengths[2...], names[2...]) where length == .pixels(0) || length == .percent(0) {
            throw FilterError("\(filter)@\(excerpt(text)): the \(name) is 0, so the region is empty; \(example)")
        }
        self.init(x: lengths[0], y: lengths[1], width: lengths[2], height: lengths[3], feather: try Self.feather(parts, text: text, filter: filter))
    }

    /// The soft edge after `~`, 0 without one.
    private static func feather(_ parts: [String], text: String, filter: String) throws -> Float {
        guard parts.count == 2 else { return 0 }
        guard let f = Float(parts[1]), (0...Float(FrameLimits.maxSide)).contains(f) else {
            throw FilterError("\(filter)@\(excerpt(text)): the soft edge ~\(excerpt(parts[1])) must be a number of pixels from 0 to \(FrameLimits.maxSide)")
        }
        return f
    }

    /// Left, top, right and bottom in pixels of a `width` x `height` picture (not clipped to it).
    public func rectangle(width w: Int, height h: Int) -> SIMD4<Float> {
        let left = x.resolved(w), top = y.resolved(h)
        return SIMD4(left, top, left + width.resolved(w), top + height.resolved(h))
    }

    public var text: String {
        (inverted ? "!" : "") + (followsFaces ? "faces" : [x, y, width, height].map(\.text).joined(separator: ",")) + (feather > 0 ? "~\(FilterValue.format(feather))" : "")
    }
}
