import NIOCore

/// Sits before the HTTP decoder and bounds what one connection may cost:
/// bytes a request may take, and the time from opening (or from the last
/// answer) to a whole request head (slowloris). Over either, the connection
/// is closed; nobody else notices.
final class RequestGuard: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let maxBytes: Int
    private let seconds: Double
    private var bytes = 0
    private var deadline: Scheduled<Void>?
    private weak var context: ChannelHandlerContext?

    init(maxBytes: Int, seconds: Double) {
        self.maxBytes = maxBytes
        self.seconds = seconds
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        arm()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bytes += unwrapInboundIn(data).readableBytes
        guard bytes <= maxBytes else {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    /// A whole request head came: the clock stops.
    func headArrived() {
        deadline?.cancel()
        deadline = nil
    }

    /// The answer went out and the connection waits for another request: count and clock start again.
    func answered() {
        bytes = 0
        arm()
    }

    /// A stream began: the client may send nothing more worth reading, but no longer has a deadline.
    func streaming() {
        headArrived()
    }

    private func arm() {
        deadline?.cancel()
        guard let context else { return }
        deadline = context.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) { [weak self] in
            self?.context?.close(promise: nil)
        }
    }
}
