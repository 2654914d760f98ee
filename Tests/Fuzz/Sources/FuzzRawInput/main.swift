import FuzzSupport
import KameraKit

/// Raw frames: a first line "FORMAT SIZE" as the command line gives them
/// (--format, --input-size), then the file's bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let data else { return 0 }
    var input = FuzzBytes(UnsafeRawBufferPointer(start: data, count: count))
    let words = input.line().split(separator: " ", maxSplits: 1).map(String.init)
    guard words.count == 2, let format = PixelFormat(name: words[0]), let size = parseSize(words[1]) else { return 0 }
    let path = input.rest.withUnsafeBytes { FuzzFile.write($0, suffix: ".raw") }
    guard let source = try? RawVideoSource(path: path, format: format, width: size.width, height: size.height) else { return 0 }
    precondition(FrameLimits.allows(width: size.width, height: size.height))
    var frames = 0
    while frames < 4, let frame = try? source.nextFrame() {
        precondition(frame.planes.count == format.planeLayouts(width: size.width, height: size.height).count)
        frames += 1
    }
    return 0
}

runFuzzer(fuzz)
