import Lifecycle
import NIOCore

/// What the server's connections share: the latest encoded frame, the
/// stream clients it goes to, the snapshots waiting for the next one. Lives
/// on the server's one event loop; the render thread reads `isWanted` and
/// the encoder thread hands frames in through `publish`.
final class LiveStream: @unchecked Sendable {
    let loop: EventLoop
    let settings: ServeSettings
    private var clients: [ObjectIdentifier: StreamClient] = [:]
    /// Clients of `/events`, the analysers' records as Server-Sent Events.
    private var listeners: [ObjectIdentifier: StreamClient] = [:]
    private var waiting: [EventLoopPromise<StreamPart>] = []
    private(set) var latest: StreamPart?
    private(set) var connections = 0
    /// Frames lost by clients that had not taken the one before (newest wins).
    private(set) var clientDrops = 0
    private(set) var stalledClosed = 0
    private let lock = Lock()
    private var viewers = 0
    /// Requests from clients not yet taken by the render thread: at most 8, the oldest go.
    private var requests: [ControlRequest] = []
    /// The filter shown, as the last request taken asked.
    private var filterShown: String
    private var served = 0

    init(loop: EventLoop, settings: ServeSettings) {
        self.loop = loop
        self.settings = settings
        filterShown = settings.filter
    }

    /// From a connection: keeps `request` for the render thread.
    func ask(_ request: ControlRequest) {
        lock.withLock {
            if requests.count == 8 { requests.removeFirst() }
            requests.append(request)
        }
    }

    /// From the render thread: the oldest request waiting.
    func takeRequest() -> ControlRequest? {
        lock.withLock {
            guard !requests.isEmpty else { return nil }
            let request = requests.removeFirst()
            if case .filter(let name) = request { filterShown = name }
            return request
        }
    }

    var filter: String { lock.withLock { filterShown } }

    /// True while a stream client or a snapshot waits for frames: nothing is encoded otherwise.
    var isWanted: Bool { lock.withLock { viewers > 0 } }

    /// Stream clients connected now (any thread).
    var clientCount: Int { lock.withLock { clients.count } }

    /// From the encoder thread: the newest frame, for every client and every waiting snapshot.
    func publish(_ part: StreamPart) {
        loop.execute { [self] in
            latest = part
            for client in clients.values { client.offer(part.bytes, stallSeconds: settings.stallSeconds) }
            let promises = waiting
            waiting.removeAll(keepingCapacity: true)
            if !promises.isEmpty { updateViewers() }
            for promise in promises { promise.succeed(part) }
        }
    }

    /// From the analysis thread: one record (a JSON line) for every `/events` client.
    func publish(event json: String) {
        loop.execute { [self] in
            guard !listeners.isEmpty else { return }
            var event = ByteBuffer()
            event.reserveCapacity(json.utf8.count + 8)
            event.writeStaticString("data: ")
            event.writeString(json)
            event.writeStaticString("\n\n")
            for listener in listeners.values { listener.offer(event, stallSeconds: settings.stallSeconds) }
        }
    }

    /// True while someone listens to `/events` (any thread).
    var hasListeners: Bool { lock.withLock { !listeners.isEmpty } }

    // MARK: On the event loop

    func listen(_ client: StreamClient) {
        lock.withLock { listeners[ObjectIdentifier(client)] = client }
    }

    /// A connection opened; false when the server already holds its most.
    func open() -> Bool {
        guard connections < settings.maxConnections else { return false }
        connections += 1
        return true
    }

    func close() { connections -= 1 }

    func add(_ client: StreamClient) {
        lock.withLock { clients[ObjectIdentifier(client)] = client }
        updateViewers()
    }

    func remove(_ client: StreamClient) {
        let removed = lock.withLock { clients.removeValue(forKey: ObjectIdentifier(client)) ?? listeners.removeValue(forKey: ObjectIdentifier(client)) }
        guard let removed else { return }
        clientDrops += removed.dropped
        if removed.closedStalled { stalledClosed += 1 }
        updateViewers()
    }

    /// The latest frame when it is fresh (made in the last half second), or the next one, waited for at most 5 s.
    func snapshot() -> EventLoopFuture<StreamPart> {
        if let latest, MonotonicClock.seconds - latest.madeAt < 0.5 { return loop.makeSucceededFuture(latest) }
        let promise = loop.makePromise(of: StreamPart.self)
        waiting.append(promise)
        updateViewers()
        loop.scheduleTask(in: .seconds(5)) { [self] in
            guard let index = waiting.firstIndex(where: { $0.futureResult === promise.futureResult }) else { return }
            waiting.remove(at: index)
            updateViewers()
            promise.fail(ServeFailure.noFrame)
        }
        return promise.futureResult
    }

    /// Frames dropped by clients so far, those connected now among them.
    var allClientDrops: Int { clientDrops + clients.values.reduce(0) { $0 + $1.dropped } }

    private func updateViewers() {
        let count = clients.count + waiting.count
        lock.withLock { viewers = count }
    }
}

enum ServeFailure: Error {
    /// No frame came in time for a snapshot.
    case noFrame
}
