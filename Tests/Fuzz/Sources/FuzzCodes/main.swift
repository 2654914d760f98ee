import FuzzSupport
import KameraKit

/// `--detect codes`: any bytes as a luma picture (its width from the first
/// byte) through zxing-cpp, the bull's-eye windows and the DataMatrix bands;
/// and any text as `--detect` values and as a code's value in JSON.
/// zxing-cpp runs in the reader's helper process, which lives as long as the
/// detector: one for the whole run, as in Kamera.
let detector = try! ObjectDetector(DetectionRequest(codeFormats: CodeFormat.allCases))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let data else { return 0 }
    var input = FuzzBytes(UnsafeRawBufferPointer(start: data, count: count))
    let width = Int(input.byte()) + 1
    let pixels = Array(input.rest)
    let text = String(decoding: pixels, as: UTF8.self)
    if let request = try? DetectionRequest(parsing: [text]) {
        precondition(!request.isEmpty)
    }
    let quoted = JSONText.quoted(text)
    // Bytes, not Characters: a combining mark after the opening quote joins
    // it in one grapheme, and hasPrefix("\"") would then be false.
    let quote = UInt8(ascii: "\"")
    precondition(quoted.utf8.count >= 2 && quoted.utf8.first == quote && quoted.utf8.last == quote)
    precondition(!quoted.unicodeScalars.contains { $0.value < 0x20 })
    let height = pixels.count / width
    guard height > 0 else { return 0 }
    pixels.withUnsafeBufferPointer { buffer in
        let image = LumaImage(width: width, height: height, pixels: buffer, range: .full)
        guard let found = try? detector.analyze(image) as? DetectedObjects else { return }
        for object in found.objects { precondition(object.bounds.width >= 0 && object.track > 0 && !object.json.isEmpty) }
    }
    return 0
}

runFuzzer(fuzz)
