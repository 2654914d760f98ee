import Render
import DRM
import GPU

/// `-o kms`: the kernel console's display (`KMSDisplay`), chosen by the
/// run's `DisplayRequest`.
public final class DisplaySink: ScreenSink, SinkKind {
    public static let forms = OutputForms(name: "display", names: ["kms"], help: "kms (the console's display)")

    public static func make(_ request: OutputRequest, run: SinkRun) throws -> FrameSink {
        DisplaySink(run.settings.display)
    }

    public let request: DisplayRequest
    private var chosen: (card: DisplayCard, choice: DisplayChoice)?
    /// The display, once attached.
    public private(set) var display: KMSDisplay?
    private var onNote: (String) -> Void = { _ in }

    public init(_ request: DisplayRequest) { self.request = request }

    public func open() throws -> (card: DRMNode, width: Int, height: Int) {
        let (card, choice) = try request.choose()
        chosen = (card, choice)
        return (card.node, choice.mode.width, choice.mode.height)
    }

    public func attach(context: GPUContext) throws {
        guard let (card, choice) = chosen else { throw OutputError("the display was not opened before its context was made") }
        let display = try KMSDisplay(context: context, card: card, choice: choice)
        display.holdsLastFrame = request.hold
        display.onNote = { [unowned self] in onNote($0) }
        self.display = display
    }

    public func start(_ run: SinkStart) throws { onNote = run.onNote }

    public func consume(_ frame: RenderedFrame) throws {
        guard let display else { throw OutputError("the display was not attached to the GPU") }
        try display.consume(frame)
    }

    public func finish() throws { try display?.finish() }
    public var screen: RenderTarget? { display?.screen }
}
