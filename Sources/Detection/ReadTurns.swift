/// Which of `CodeReader`'s reads a frame gets. While no code is in view,
/// every read on every frame: a code is found on the first frame that shows
/// it. While codes are in view (reads found some on the frame before), the
/// reads that found them are made again on every frame, to follow them, and
/// the others take turns: each is made on every `turns`th frame, a quarter
/// of them a frame, so a code that comes into view beside another is found
/// within `turns` frames. A scanner spends most of its frames on a code it
/// already holds (GStreamer's `zxing` element reads nothing else while a
/// QR code is in view); so these frames cost about what the reads that
/// follow the codes cost. The first frame gets every read, and so does a
/// still picture.
struct ReadTurns {
    static let turns = 4
    /// Which reads this frame gets, by their place.
    private(set) var due: [Bool]
    /// Which reads found codes on the frame before: they follow them.
    private(set) var followed: [Bool]
    private var foundNow: [Bool]
    private var frame = 0

    /// `reads`: how many reads a frame has, each known by its place.
    init(reads: Int) {
        due = Array(repeating: true, count: reads)
        followed = Array(repeating: false, count: reads)
        foundNow = followed
    }

    /// Starts a frame, and sets which of the reads it gets (`due`).
    mutating func nextFrame() {
        swap(&followed, &foundNow)
        let codesInView = followed.contains(true)
        frame += 1
        for read in due.indices {
            foundNow[read] = false
            due[read] = !codesInView || followed[read] || (read + frame) % Self.turns == 0
        }
    }

    /// Read `read` found codes on this frame.
    mutating func found(_ read: Int) {
        foundNow[read] = true
    }
}
