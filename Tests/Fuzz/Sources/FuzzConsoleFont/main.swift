import FuzzSupport
import KameraKit

/// Console fonts (PSF 1 and 2, gzipped or not) as overlay labels read them:
/// any bytes give a font or a one-line error, and every glyph lies inside.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    do {
        let font = try ConsoleFont(bytes: bytes, name: "fuzz.psf")
        precondition(font.glyphs.count == font.count * font.width * font.height)
        for scalar in ["A", "?", "é", "\u{1F600}"].flatMap(\.unicodeScalars) { precondition((0..<font.count).contains(font.glyph(for: scalar))) }
    } catch {
        precondition(!"\(error)".isEmpty && !"\(error)".contains("\n"))
    }
    return 0
}

runFuzzer(fuzz)
