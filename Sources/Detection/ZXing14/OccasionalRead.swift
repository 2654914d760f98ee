/// When `CodeReader` makes a read that costs about as much as a whole-frame
/// read and seldom finds anything: reading a frame again for QR codes that
/// zxing-cpp 1.4 left out (codes lined up in a grid), and reading it mirrored.
/// Such a read is made on a frame that calls for it (`wanted`: for the read
/// again, other QR codes than on the frame before), on the frame after one
/// where it found codes (they are still in view), and otherwise on every
/// `interval`th frame, so that a code it alone finds is found within that
/// many frames. The first frame always gets it, and so does a still picture.
struct OccasionalRead {
    static let interval = 8
    private var foundLast = false
    private var framesSince = interval

    /// Whether this frame gets the read.
    mutating func isDue(wanted: Bool = false) -> Bool {
        let due = wanted || foundLast || framesSince >= Self.interval
        if !due { framesSince += 1 }
        return due
    }

    /// The read was made; `found`: it found codes.
    mutating func made(found: Bool) {
        (foundLast, framesSince) = (found, 1)
    }
}
