import ArgumentParser
import Output
import Pixels

/// Parsers for numeric option values. Every value option is parsed
/// `.unconditional`, so `--frames -1` reaches the checks that say what range
/// is valid instead of being taken for an option; a value that is not a
/// number says what would be one.
public enum ArgumentValue {
    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    public static func integer(_ rule: String) -> @Sendable (String) throws -> Int {
        { text in
            guard let value = Int(text) else { throw Invalid(description: "use \(rule)") }
            return value
        }
    }

    /// A frame count, 1 to `FrameLimits.maxFrames`.
    public static func frameCount() -> @Sendable (String) throws -> Int {
        { text in
            guard let value = Int(text), (1...FrameLimits.maxFrames).contains(value) else {
                throw Invalid(description: "use a whole number of frames from 1 to \(FrameLimits.maxFrames)")
            }
            return value
        }
    }

    /// A number of seconds above 0 and at most `FrameLimits.maxSeconds`.
    public static func seconds() -> @Sendable (String) throws -> Double {
        { text in
            guard let value = Double(text), value.isFinite, value > 0, value <= FrameLimits.maxSeconds else {
                throw Invalid(description: "use a number of seconds above 0 and at most 1e9")
            }
            return value
        }
    }

    public static func real(_ rule: String) -> @Sendable (String) throws -> Double {
        { text in
            guard let value = Double(text), value.isFinite else { throw Invalid(description: "use \(rule)") }
            return value
        }
    }

    /// Bits a second: `4000000`, `4M`, `800k`.
    public static func bitrate() -> @Sendable (String) throws -> Int {
        { text in
            let multiplier: Double = text.hasSuffix("M") || text.hasSuffix("m") ? 1e6 : text.hasSuffix("k") || text.hasSuffix("K") ? 1e3 : 1
            let digits = multiplier == 1 ? text : String(text.dropLast())
            guard let value = Double(digits), value.isFinite, value > 0, value * multiplier <= 1e9 else {
                throw Invalid(description: "use bits a second, such as 4M, 800k or 2500000")
            }
            return Int(value * multiplier)
        }
    }

    /// `--gop`: frames (`30`) or seconds (`2s`); the range is checked against the run's rate.
    public static func keyFrameInterval() -> @Sendable (String) throws -> KeyFrameInterval {
        { text in
            guard let interval = KeyFrameInterval(parsing: text) else {
                throw Invalid(description: "use a whole number of frames, such as 30, or seconds, such as 2s")
            }
            return interval
        }
    }
}
