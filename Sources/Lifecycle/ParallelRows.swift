/// Work on some rows of a picture, given to `ParallelRows`.
public protocol RowWork: AnyObject {
    /// Does the work for `rows`; called on several threads at once, for disjoint ranges.
    func work(rows: Range<Int>)
}

/// Splits work on the rows of a picture between the calling thread and
/// helper threads, made once, so that a frame's split allocates nothing.
/// `run` returns when every part is done. The helpers are joined in `deinit`.
public final class ParallelRows: @unchecked Sendable {
    /// Threads working on a split, the calling thread included.
    public let threads: Int
    private let name: String
    private var helpers: [JoinableThread] = []
    /// Broadcast when a split starts (or the helpers are to stop), and when a helper is done.
    private let state = ConditionLock()
    // Guarded by `state`.
    private var job: RowWork?
    private var count = 0
    private var generation = 0
    private var helpersDone = 0
    private var stopping = false

    /// `threads` in all (at least 1); the helpers start on the first split.
    public init(threads: Int, name: String) {
        self.threads = max(1, threads)
        self.name = name
    }

    deinit {
        state.withLock {
            stopping = true
            state.broadcast()
        }
        for helper in helpers { helper.join() }
    }

    /// Calls `job` with consecutive row ranges covering `0..<count`, one per
    /// thread, at once on the helpers and the calling thread.
    public func run(count: Int, _ job: RowWork) {
        guard min(threads, count) > 1 else {
            job.work(rows: 0..<count)
            return
        }
        if helpers.isEmpty {
            helpers = (1..<threads).map { n in
                JoinableThread(name: "\(name)\(n)") { [unowned self] in help(part: n) }
            }
        }
        state.withLock {
            self.job = job
            self.count = count
            helpersDone = 0
            generation &+= 1
            state.broadcast()
        }
        job.work(rows: Self.rows(part: 0, of: threads, count: count))
        state.withLock {
            while helpersDone < threads - 1 { state.wait() }
            self.job = nil
        }
    }

    /// Part `part` of `parts` nearly equal ranges of `0..<count` (some empty when count < parts).
    static func rows(part: Int, of parts: Int, count: Int) -> Range<Int> {
        (count * part / parts)..<(count * (part + 1) / parts)
    }

    /// Which of this splitter's parts of `0..<count` holds `row` (0 for a run not split):
    /// lets a job keep scratch memory for each part.
    public func part(holding row: Int, count: Int) -> Int {
        (0..<threads).first { Self.rows(part: $0, of: threads, count: count).contains(row) } ?? 0
    }

    private func help(part: Int) {
        var seen = 0
        while true {
            let next: (job: RowWork, count: Int)? = state.withLock {
                while generation == seen && !stopping { state.wait() }
                seen = generation
                return stopping ? nil : (job!, count)
            }
            guard let next else { return }
            let rows = Self.rows(part: part, of: threads, count: next.count)
            if !rows.isEmpty { next.job.work(rows: rows) }
            state.withLock {
                helpersDone += 1
                // Broadcast: the caller waits on the same condition as the helpers.
                state.broadcast()
            }
        }
    }

}
