import FuzzSupport
import KameraKit

/// A Y4M file: the header, the scan ahead, and the first frames.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let data else { return 0 }
    let path = FuzzFile.write(UnsafeRawBufferPointer(start: data, count: count), suffix: ".y4m")
    guard let source = try? Y4MSource(path: path) else { return 0 }
    for _ in 0..<4 {
        guard let frame = try? source.nextFrame() else { break }
        precondition(frame.width == source.width && frame.height == source.height)
        precondition(FrameLimits.allows(width: frame.width, height: frame.height))
    }
    return 0
}

runFuzzer(fuzz)
