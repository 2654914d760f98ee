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
        if let authorization, request.headers.first(name: "authorization") != authorization {
            return respond(context, request, .unauthorized, text: "this server asks for a user and password (HTTP Basic)\n",
                           headers: [("WWW-Authenticate", "Basic realm=\"Kamera\", charset=\"UTF-8\"")])
        }
        let endpoint = Endpoint(uri: request.uri)
        if case .filter(let name) = endpoint {
            return control(request, name: name, context: context)
        }
        if case .record(let start) = endpoint {
            return record(request, start: start, context: context)
        }
        guard request.method == .GET || request.method == .HEAD else {
            return respond(context, request, .methodNotAllowed, text: "Kamera's server answers GET and HEAD (POST on /filter and /record)\n", headers: [("Allow", "GET, HEAD")])
        }
        switch endpoint {
        case .stream:
            startStream(request, context: context, type: "multipart/x-mixed-replace;boundary=\(StreamPart.boundary)")
        case .events:
            startStream(request, context: context, type: "text/event-stream", events: true)
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
        case .filter, .record:
            break
        case .none:
            respond(context, request, .notFound, text: "Kamera serves /stream, /snapshot, /state, /events and / (also /?action=stream and /?action=snapshot; POST /filter and /record)\n")
        }
    }

    /// `POST /filter?name=NAME`: the picture through that preset from the next frames on. A page elsewhere
    /// cannot send it: it needs the `X-Kamera-Control` header, which browsers send across sites only after a preflight Kamera never answers.
    private func control(_ request: HTTPRequestHead, name: String, context: ChannelHandlerContext) {
        guard request.method == .POST else {
            return respond(context, request, .methodNotAllowed, text: "POST /filter?name=NAME changes the filter\n", headers: [("Allow", "POST")])
        }
        guard request.headers.first(name: "x-kamera-control") == "1" else {
            return respond(context, request, .forbidden, text: "control requests carry the header X-Kamera-Control: 1\n")
        }
        guard stream.settings.filters.contains(name) else {
            return respond(context, request, .badRequest, text: "no filter preset is named that; the presets: \(stream.settings.filters.joined(separator: ", "))\n")
        }
        stream.ask(.filter(name))
        respond(context, request, .accepted, text: "filter: \(name)\n")
    }

    /// `POST /record?action=start|stop`: a recording (`kamera-recording-NNNN.mp4`
    /// where Kamera runs) started or stopped between frames; `/state` says its name.
    private func record(_ request: HTTPRequestHead, start: Bool?, context: ChannelHandlerContext) {
        guard request.method == .POST else {
            return respond(context, request, .methodNotAllowed, text: "POST /record?action=start or stop starts or stops a recording\n", headers: [("Allow", "POST")])
        }
        guard request.headers.first(name: "x-kamera-control") == "1" else {
            return respond(context, request, .forbidden, text: "control requests carry the header X-Kamera-Control: 1\n")
        }
        guard let start else {
            return respond(context, request, .badRequest, text: "POST /record?action=start or /record?action=stop\n")
        }
        stream.ask(.record(start))
        respond(context, request, .accepted, text: "record: \(start ? "start" : "stop")\n")
    }

    /// A response that never ends: the MJPEG stream, or the analysers' records as Server-Sent Events.
    private func startStream(_ request: HTTPRequestHead, context: ChannelHandlerContext, type: String, events: Bool = false) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Cache-Control", value: "no-store, no-cache, must-revalidate, max-age=0")
        headers.add(name: "Pragma", value: "no-cache")
        headers.add(name: "Connection", value: "close")
        // HTTP/1.0, as mjpg-streamer and ustreamer answer: the body ends with the connection, not
        // chunked, so clients that read the parts straight off the socket work unchanged.
        let response = HTTPResponseHead(version: .http1_0, status: .ok, headers: headers)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        guard request.method == .GET else {
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
            return
        }
        context.flush()
        requestGuard.streaming()
        let client = StreamClient(context: context)
        self.client = client
        if events { stream.listen(client) } else { stream.add(client) }
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
    case stream, snapshot, state, page, events
    case filter(String)
    /// `/record?action=start|stop`: the action, or nil when it is neither.
    case record(Bool?)

    init?(uri: String) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? ""
        let query = parts.count > 1 ? parts[1].split(separator: "&") : []
        let action = query.first(where: { $0.hasPrefix("action=") })?.dropFirst(7)
        switch (path, action) {
        case ("/", "stream"?), ("/stream", _): self = .stream
        case ("/", "snapshot"?), ("/snapshot", _): self = .snapshot
        case ("/state", _): self = .state
        case ("/events", _): self = .events
        case ("/filter", _):
            let name = query.first(where: { $0.hasPrefix("name=") })?.dropFirst(5) ?? ""
            self = .filter(String(name.prefix(64)))
        case ("/record", "start"?): self = .record(true)
        case ("/record", "stop"?): self = .record(false)
        case ("/record", _): self = .record(nil)
        case ("/", nil), ("/index.html", _): self = .page
        default: return nil
        }
    }
}
