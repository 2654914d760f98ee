import Render

/// Steadies the face boxes that `@faces` filters draw through, frame by
/// frame, by track: a box grows at once to cover where its face was found
/// (a privacy mask never lags behind a face) and shrinks towards it by
/// `follow` of the way each frame (no jitter); a face the analysis missed
/// keeps its last box for `hold` frames, so one missed detection does not
/// uncover it for a frame. Used on the render thread only; after the first
/// frames it allocates nothing.
public final class FaceSmoother {
    private struct Shown {
        let track: Int
        var left, top, right, bottom: Double
        var missed = 0
    }

    let follow: Double
    let hold: Int
    /// In the order the tracks began.
    private var shown: [Shown] = []
    private var boxes: [PixelBox] = []

    public init(follow: Double = 0.3, hold: Int = 15) { (self.follow, self.hold) = (follow, hold) }

    /// The boxes to draw through this frame, given the objects found for it
    /// (the newest analysis, tracked; a face without a track is drawn as found).
    public func update(_ objects: [DetectedObject]) -> [PixelBox] {
        boxes.removeAll(keepingCapacity: true)
        for i in shown.indices { shown[i].missed += 1 }
        for face in objects where face.type == "face" {
            let b = face.bounds
            let (l, t, r, bt) = (Double(b.x), Double(b.y), Double(b.x + b.width), Double(b.y + b.height))
            guard face.track > 0 else {
                boxes.append(b)
                continue
            }
            guard let i = shown.firstIndex(where: { $0.track == face.track }) else {
                shown.append(Shown(track: face.track, left: l, top: t, right: r, bottom: bt))
                continue
            }
            shown[i].left = l < shown[i].left ? l : shown[i].left + (l - shown[i].left) * follow
            shown[i].top = t < shown[i].top ? t : shown[i].top + (t - shown[i].top) * follow
            shown[i].right = r > shown[i].right ? r : shown[i].right + (r - shown[i].right) * follow
            shown[i].bottom = bt > shown[i].bottom ? bt : shown[i].bottom + (bt - shown[i].bottom) * follow
            shown[i].missed = 0
        }
        shown.removeAll { $0.missed > hold }
        for s in shown {
            let left = Int(s.left.rounded(.down)), top = Int(s.top.rounded(.down))
            boxes.append(PixelBox(x: left, y: top, width: Int(s.right.rounded(.up)) - left, height: Int(s.bottom.rounded(.up)) - top))
        }
        return boxes
    }
}
