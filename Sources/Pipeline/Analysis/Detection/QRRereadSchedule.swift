/// Which frames `CodeReader` reads again for the QR codes zxing-cpp 1.4 left
/// out of its first read (codes lined up in a grid). A read again costs about
/// as much as the first QR read, so it is done on a frame whose first read
/// found a QR code and:
/// - found other QR codes than the frame before (a new code, or a sheet of
///   them coming into view), or
/// - follows a frame whose read again found more (the grid is still there), or
/// - is the `interval`th since the last read again (a code that came into
///   view beside codes already read is found within that many frames).
/// A still picture, or the first frame with a code, is always read again.
struct QRRereadSchedule {
    static let interval = 8
    private var previous: Set<String> = []
    private var foundMore = false
    private var framesSince = interval

    /// Whether the frame whose first read found the QR codes `values` is read again.
    mutating func isDue(values: Set<String>) -> Bool {
        defer { previous = values }
        let due = !values.isEmpty && (foundMore || values != previous || framesSince >= Self.interval)
        if !due { framesSince += 1 }
        return due
    }

    /// The frame was read again; `more`: it found codes the first read had not.
    mutating func reread(foundMore more: Bool) {
        (foundMore, framesSince) = (more, 1)
    }
}
