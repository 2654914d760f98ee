/// Writes one PNG file (see `OutputFile` for how: never half-written, special
/// files in place).
public enum PNGWriter {
    /// Writes `width` x `height` RGBA pixels (rows top first, tightly packed) to `path`.
    public static func write(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, to path: String) throws {
        let encoder = PNGEncoder()
        try withExtendedLifetime(encoder) {
            let bytes = try encoder.encode(pixels, width: width, height: height)
            let file = try OutputFile(path: path)
            try file.write(bytes)
            try file.commit()
        }
    }
}
