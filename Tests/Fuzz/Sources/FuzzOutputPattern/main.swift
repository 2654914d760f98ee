import FuzzSupport
import KameraKit

/// Output names (`-o`): the pattern, the paths of a few frames, and the checks
/// made before the first frame (they look, and never write).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let data else { return 0 }
    var input = FuzzBytes(UnsafeRawBufferPointer(start: data, count: count))
    let frames = Int(input.byte()) + 1
    let text = String(decoding: input.rest, as: UTF8.self)
    // The form of -o: a refused name is refused with a message on one line.
    do {
        _ = try OutputRequest(parsing: text, stream: frames % 2 == 0 ? .png : .y4m)
    } catch {
        precondition(!"\(error)".isEmpty)
    }
    guard let pattern = try? OutputPattern(text) else { return 0 }
    for index in [0, 1, 9, 10, frames - 1, Int.max] {
        let path = pattern.path(for: index)
        precondition(pattern.isSequence || path == pattern.path(for: 0))
        precondition(path.utf8.count <= text.utf8.count + OutputPattern.maxWidth + 1)
    }
    _ = try? pattern.check(frames: frames)
    return 0
}

runFuzzer(fuzz)
