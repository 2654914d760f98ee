import Lifecycle
import NIOCore
import NIOHTTP1

/// One client of the MJPEG stream (or of the analysers' events), on the
/// event loop: at most one part being written and one waiting, the newest. A client that reads slowly
/// loses frames (counted); one that takes none for the stall time is closed.
/// Others never wait for it.
final class StreamClient {
    private let context: ChannelHandlerContext
    private var writingSince: Double?
    private var waiting: ByteBuffer?
    private(set) var sent = 0
    private(set) var dropped = 0
    private(set) var closedStalled = false

    init(context: ChannelHandlerContext) {
        self.context = context
    }

    func offer(_ part: ByteBuffer, stallSeconds: Double) {
        guard let since = writingSince else {
            send(part)
            return
        }
        if waiting != nil { dropped += 1 }
        waiting = part
        if MonotonicClock.seconds - since > stallSeconds, !closedStalled {
            closedStalled = true
            context.close(promise: nil)
        }
    }

    private func send(_ part: ByteBuffer) {
        writingSince = MonotonicClock.seconds
        let body = HTTPServerResponsePart.body(.byteBuffer(part))
        context.writeAndFlush(NIOAny(body)).whenComplete { [self] result in
            writingSince = nil
            guard case .success = result else { return }
            sent += 1
            if let next = waiting {
                waiting = nil
                send(next)
            }
        }
    }
}
