import Render

/// Gives each detected object a track number that stays the same while it
/// stays in view: a code by its type, value and place (its box overlapping
/// the box it had, or its center within a box's size of it: it moved), a
/// face by its box overlapping the one it had (intersection over union at
/// least 0.3). A track ends when it is missed in `misses` analysed frames
/// in a row, the last of them more than `memory` seconds of frame time
/// after the first, so an object that left and came back is new again, and
/// a slow analyser (a frame a second or less) does not end tracks for one
/// detection missed. Only frames that missed it count towards that time:
/// an object away for half a second, found again by the next frame a slow
/// analyser takes a second later, keeps its track, and so does one seen
/// before a stall (no frames for seconds: the camera or the machine) and
/// missed only briefly after it.
public final class ObjectTracker {
    private struct Track {
        let number: Int
        let type: String
        let value: String?
        var bounds: PixelBox
        var seen: Double
        var missed = 0
        /// The frame times of the first and the last frame that missed it since it was last seen.
        var firstMissed = 0.0, lastMissed = 0.0
    }

    let memory: Double
    let misses: Int
    private var tracks: [Track] = []
    private var next = 1

    public init(memory: Double = 1, misses: Int = 3) { (self.memory, self.misses) = (memory, misses) }

    /// Numbers `objects` (found at `time`, seconds) and marks the new ones.
    public func assign(_ objects: inout [DetectedObject], at time: Double) {
        tracks.removeAll { ($0.missed >= misses && $0.lastMissed - $0.firstMissed > memory) || time < $0.seen }
        var taken = Set<Int>()
        for i in objects.indices {
            let object = objects[i]
            let match = tracks.indices.filter { !taken.contains(tracks[$0].number) && Self.matches(tracks[$0], object) }
                .max { Self.closeness(tracks[$0], object) < Self.closeness(tracks[$1], object) }
            if let match {
                objects[i].track = tracks[match].number
                tracks[match].bounds = object.bounds
                tracks[match].seen = time
                tracks[match].missed = 0
            } else {
                objects[i].track = next
                objects[i].isNew = true
                tracks.append(Track(number: next, type: object.type, value: object.value, bounds: object.bounds, seen: time))
                next += 1
            }
            taken.insert(objects[i].track)
        }
        for i in tracks.indices where !taken.contains(tracks[i].number) {
            if tracks[i].missed == 0 { tracks[i].firstMissed = time }
            tracks[i].missed += 1
            tracks[i].lastMissed = time
        }
    }

    private static func matches(_ track: Track, _ object: DetectedObject) -> Bool {
        guard track.type == object.type, track.value == object.value else { return false }
        if object.type == "face" { return track.bounds.intersectionOverUnion(object.bounds) >= 0.3 }
        return track.bounds.intersectionOverUnion(object.bounds) > 0 || centerDistance(track.bounds, object.bounds)
            <= Double(max(track.bounds.width, track.bounds.height, 8))
    }

    private static func closeness(_ track: Track, _ object: DetectedObject) -> Double {
        track.bounds.intersectionOverUnion(object.bounds) - centerDistance(track.bounds, object.bounds) / 1e6
    }

    private static func centerDistance(_ a: PixelBox, _ b: PixelBox) -> Double {
        let dx = Double(a.x * 2 + a.width - b.x * 2 - b.width) / 2, dy = Double(a.y * 2 + a.height - b.y * 2 - b.height) / 2
        return (dx * dx + dy * dy).squareRoot()
    }
}
