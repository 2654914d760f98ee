import Render
import Output
import Pipeline

/// Keys of a live shader run: space pauses time, left and right arrows step
/// one frame, r resets time, s saves the picture as a PNG, q quits.
public final class ShaderControls: KeyControls {
    private let harness: ShaderHarness
    private let renderer: FrameRenderer
    private let snapshots: SnapshotWriter
    /// Bytes of an escape sequence (arrow keys send ESC [ C and ESC [ D).
    private var escape: [UInt8] = []
    public var onMessage: ((String) -> Void)?

    public static let help = "space pauses, left/right arrows step a frame, r resets time, s saves a PNG, q quits"

    public init(harness: ShaderHarness, renderer: FrameRenderer, snapshots: SnapshotWriter = SnapshotWriter()) {
        self.harness = harness
        self.renderer = renderer
        self.snapshots = snapshots
    }

    public func handle(_ key: UInt8) -> LiveControls.Response {
        if !escape.isEmpty || key == 27 {
            escape.append(key)
            if escape.count == 3 {
                defer { escape = [] }
                if escape[1] == UInt8(ascii: "[") && escape[2] == UInt8(ascii: "C") { step(1) }
                if escape[1] == UInt8(ascii: "[") && escape[2] == UInt8(ascii: "D") { step(-1) }
            } else if escape.count == 2 && key != UInt8(ascii: "[") {
                escape = []
            }
            return .keepGoing
        }
        switch key {
        case UInt8(ascii: "q"): return .quit
        case UInt8(ascii: " "):
            harness.clock.togglePause()
            onMessage?(harness.clock.paused ? "paused" : "playing")
        case UInt8(ascii: "r"):
            harness.clock.reset()
            onMessage?("time 0")
        case UInt8(ascii: "s"):
            do {
                guard let size = renderer.lastOutputSize else { break }
                let path = try snapshots.save(try renderer.readBack(), width: size.width, height: size.height)
                onMessage?("saved \(path)")
            } catch {
                onMessage?("s: \(error)")
            }
        default: break
        }
        return .keepGoing
    }

    private func step(_ frames: Int) {
        harness.clock.step(frames)
        onMessage?("paused; frame step \(frames > 0 ? "+1" : "-1")")
    }
}
