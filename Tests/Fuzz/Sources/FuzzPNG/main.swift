import FuzzSupport
import KameraKit

/// A PNG file through libpng's simplified API, as `--input x.png` reads it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let data else { return 0 }
    let path = FuzzFile.write(UnsafeRawBufferPointer(start: data, count: count), suffix: ".png")
    guard let source = try? ImageSource(path: path), let frame = try? source.nextFrame() else { return 0 }
    precondition(FrameLimits.allows(width: frame.width, height: frame.height))
    precondition(frame.planes[0].bytes.count == frame.width * frame.height * 4)
    return 0
}

runFuzzer(fuzz)
