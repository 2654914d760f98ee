import Foundation
import NIOCore
import NIOHTTP1

/// One connection's requests, answered from the live stream: the endpoints
/// of mjpg-streamer and ustreamer (`/?action=stream`, `/stream`,
/// `/?action=snapshot`, `/snapshot`), `/state` and the page at `/`.
final class ServeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let stream: LiveStream
    private let state: () -> String
    private let requestGuard: RequestGuard
    /// `Basic BASE64(USER:PASSWORD)`, when asked.
    private let authorization: String?
    private var head: HTTPRequestHead?
    private var client: StreamClient?
    private var opened = false

    init(stream: LiveStream, requestGuard: RequestGuard, state: @escaping () -> String) {
        self.stream = stream
        self.requestGuard = requestGuard
        self.state = state
        authorization = stream.settings.credentials.map { "Basic " + Data("\($0.user):\($0.password)".utf8).base64EncodedString() }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened = stream.open()
        if !opened { context.close(promise: nil) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let client { stream.remove(client) }
        client = nil
        if opened { stream.close() }
        opened = false
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            requestGuard.headArrived()
            head = request
        case .body:
            break
        case .end:
            guard client == nil, let request = head else { return }
            head = nil
            answer(request, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    private func answer(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard request.method == .GET || request.method == .HEAD else {
            return respond(context, request, .methodNotAllowed, text: "Kamera's server answers GET and HEAD\n", headers: [("Allow", "GET, HEAD")])
        }
        if let authorization, request.headers.first(name: "authorization") != authorization {
            return respond(context, request, .unauthorized, text: "give the user and password of --auth\n",
                           headers: [("WWW-Authenticate", "Basic realm=\"Kamera\", charset=\"UTF-8\"")])
        }
        switch Endpoint(uri: request.uri) {
        case .stream:
            startStream(request, context: context)
        case .snapshot:
            stream.snapshot().whenComplete { [self] result in
                switch result {
                case .success(let part):
                    respond(context, request, .ok, body: part.jpeg, type: "image/jpeg",
                            headers: [("X-Timestamp", String(format: "%.6f", part.timestamp)), ("Cache-Control", "no-store")])
                case .failure:
                    respond(context, request, .serviceUnavailable, text: "no frame was rendered in 5 seconds\n")
                }
            }
        case .state:
            var body = context.channel.allocator.buffer(capacity: 256)
            body.writeString(state())
            respond(context, request, .ok, body: body, type: "application/json", headers: [("Cache-Control", "no-store")])
        case .page:
            var body = context.channel.allocator.buffer(capacity: ServePage.html.utf8.count)
            body.writeString(ServePage.html)
            respond(context, request, .ok, body: body, type: "text/html; charset=utf-8")
        case .none:
            respond(context, request, .notFound, text: "Kamera serves /stream, /snapshot, /state and / (also /?action=stream and /?action=snapshot)\n")
        }
    }

    private func startStream(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "multipart/x-mixed-replace;boundary=\(StreamPart.boundary)")
        headers.add(name: "Cache-Control", value: "no-store, no-cache, must-revalidate, max-age=0")
        headers.add(name: "Pragma", value: "no-cache")
        headers.add(name: "Connection", value: "close")
        let response = HTTPResponseHead(version: request.version, status: .ok, headers: headers)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        guard request.method == .GET else {
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
            return
        }
        context.flush()
        requestGuard.streaming()
        let client = StreamClient(context: context)
        self.client = client
        stream.add(client)
    }

    private func respond(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ status: HTTPResponseStatus, text: String,
                         headers: [(String, String)] = []) {
        var body = context.channel.allocator.buffer(capacity: text.utf8.count)
        body.writeString(text)
        respond(context, request, status, body: body, type: "text/plain; charset=utf-8", headers: headers)
    }

    private func respond(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ status: HTTPResponseStatus, body: ByteBuffer, type: String,
                         headers extra: [(String, String)] = []) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        for (name, value) in extra { headers.add(name: name, value: value) }
        let keepAlive = request.isKeepAlive && status != .notFound && status.code < 500
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        if request.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [requestGuard] _ in
            if keepAlive { requestGuard.answered() } else { context.close(promise: nil) }
        }
    }
}

/// What a request's path asks for.
enum Endpoint {
    case stream, snapshot, state, page

    init?(uri: String) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? ""
        let query = parts.count > 1 ? parts[1].split(separator: "&") : []
        let action = query.first(where: { $0.hasPrefix("action=") })?.dropFirst(7)
        switch (path, action) {
        case ("/", "stream"?), ("/stream", _): self = .stream
        case ("/", "snapshot"?), ("/snapshot", _): self = .snapshot
        case ("/state", _): self = .state
        case ("/", nil), ("/index.html", _): self = .page
        default: return nil
        }
    }
}
