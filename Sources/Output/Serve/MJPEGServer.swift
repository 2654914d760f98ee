import Foundation
import Messages
import NIOCore
import NIOHTTP1
import NIOPosix

/// The HTTP server of the live picture: one event loop thread for every
/// connection, SwiftNIO's HTTP/1 parser with bounded headers, and
/// `RequestGuard` before it. `stop` closes every connection and joins the thread.
final class MJPEGServer {
    let stream: LiveStream
    /// The address it listens on, with the port the system gave for port 0.
    let address: ServeAddress
    private let group: MultiThreadedEventLoopGroup
    private var channel: Channel?

    init(_ requested: ServeAddress, settings: ServeSettings, state: @escaping () -> String) throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let stream = LiveStream(loop: group.next(), settings: settings)
        self.stream = stream
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = settings.maxRequestBytes
        limits.maxHeaderListSize = settings.maxRequestBytes
        limits.maxHeaderFieldCount = 100
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            // A fixed send buffer (the kernel's autotuning grows it to megabytes): a stalled client holds little and is found out in seconds.
            .childChannelOption(ChannelOptions.socketOption(.so_sndbuf), value: 256 * 1024)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let requestGuard = RequestGuard(maxBytes: settings.maxRequestBytes, seconds: settings.requestSeconds)
                    try channel.pipeline.syncOperations.addHandler(requestGuard)
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: true, withOutboundHeaderValidation: true,
                        withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
                    try channel.pipeline.syncOperations.addHandler(ServeHandler(stream: stream, requestGuard: requestGuard, state: state))
                }
            }
        do {
            let channel = try bootstrap.bind(host: requested.host, port: requested.port).wait()
            self.channel = channel
            address = ServeAddress(host: requested.host, port: channel.localAddress?.port ?? requested.port)
        } catch {
            try? group.syncShutdownGracefully()
            throw OutputError(.serve, requested.description, because: Self.reason(error), "choose another port (\(Setting.serve) 8081), or 0 for any free one")
        }
    }

    /// Closes the listener and every connection, and joins the event loop's thread.
    func stop() {
        guard let channel else { return }
        self.channel = nil
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    deinit { stop() }

    private static func reason(_ error: Error) -> String {
        if let error = error as? IOError {
            switch error.errnoCode {
            case EADDRINUSE: return "another program listens on that port"
            case EACCES: return "ports below 1024 need root"
            case EADDRNOTAVAIL: return "no interface of this machine has that address"
            default: return "cannot listen: \(String(cString: strerror(error.errnoCode)))"
            }
        }
        return "cannot listen: \(error)"
    }
}
