import Capture
import Pipeline
import Pixels

/// A size option's value: WxH or a preset (vga, 720p, …), within Kamera's frame limits.
public enum SizeArgument {
    public static func parse(_ text: String, option: String, example: String) throws -> (width: Int, height: Int) {
        guard let size = parseSize(text) else {
            throw UsageError("\(option) \(excerpt(text)) is not a size; use WxH with whole numbers from 1, such as \(example)")
        }
        guard FrameLimits.allows(width: size.width, height: size.height) else {
            throw UsageError("\(option) \(excerpt(text)) is too large; use \(FrameLimits.summary)")
        }
        return size
    }
}
