import Foundation
import Lifecycle

/// Encodes PNGs on worker threads, so that encoding overlaps rendering and
/// several frames encode at once; results are taken back in the order the
/// frames were given. Each slot owns a copy of the pixels and an encoder,
/// made once per size, so steady state allocates nothing. The owner takes
/// the oldest result back before giving more frames than there are slots
/// (back-pressure).
final class PNGEncodingPool: @unchecked Sendable {
    private final class Slot {
        let encoder: PNGEncoder
        var pixels = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        var width = 0, height = 0, index = 0
        var result: Result<UnsafeRawBufferPointer, Error>?
        var busy = false

        init(compression: PNGCompression) { encoder = PNGEncoder(compression: compression) }
        deinit { pixels.deallocate() }
    }

    private let condition = ConditionLock()
    private let slots: [Slot]
    /// Slots given frames, oldest first; `waiting` are those no worker has taken yet.
    private var inOrder: [Int] = [], waiting: [Int] = []
    private var stopping = false
    private var workers: [JoinableThread] = []

    init(threads: Int, compression: PNGCompression) {
        slots = (0..<threads + 1).map { _ in Slot(compression: compression) }
        inOrder.reserveCapacity(slots.count)
        waiting.reserveCapacity(slots.count)
        workers = (0..<threads).map { n in JoinableThread(name: "kamera.png\(n)") { [unowned self] in work() } }
    }

    deinit { stop() }

    /// Frames given and not yet taken back.
    var pending: Int { condition.withLock { inOrder.count } }

    /// True when `add` would find a free slot.
    var hasFreeSlot: Bool { condition.withLock { inOrder.count < slots.count } }

    /// Copies the pixels of frame `index` into a free slot for a worker to
    /// encode; call only when `hasFreeSlot`.
    func add(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, index: Int) {
        let free = condition.withLock { slots.indices.first { !slots[$0].busy }! }
        let slot = slots[free]
        let size = width * height * 4
        if slot.pixels.count != size {
            slot.pixels.deallocate()
            slot.pixels = .allocate(byteCount: size, alignment: 64)
        }
        slot.pixels.copyMemory(from: UnsafeRawBufferPointer(rebasing: pixels[0..<size]))
        (slot.width, slot.height, slot.index, slot.result) = (width, height, index, nil)
        condition.withLock {
            slot.busy = true
            inOrder.append(free)
            waiting.append(free)
            condition.signal()
        }
    }

    /// Waits for the oldest frame given, hands its PNG to `body` (valid only
    /// there), then frees its slot. Throws the encoder's error.
    func takeOldest(_ body: (_ png: UnsafeRawBufferPointer, _ index: Int) throws -> Void) throws {
        let slot: Slot = condition.withLock {
            let slot = slots[inOrder[0]]
            while slot.result == nil { condition.wait() }
            return slot
        }
        defer {
            condition.withLock {
                slot.busy = false
                inOrder.removeFirst()
            }
        }
        try body(try slot.result!.get(), slot.index)
    }

    /// True when the oldest frame given has been encoded (or failed), so `takeOldest` would not wait.
    var oldestIsDone: Bool {
        condition.withLock { inOrder.first.map { slots[$0].result != nil } ?? false }
    }

    /// Stops the workers once they finish what they are encoding, and joins them.
    func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
        for worker in workers { worker.join() }
        workers.removeAll()
    }

    private func work() {
        while true {
            let slot: Slot? = condition.withLock {
                while waiting.isEmpty && !stopping { condition.wait() }
                return stopping ? nil : slots[waiting.removeFirst()]
            }
            guard let slot else { return }
            let result = Result { try slot.encoder.encode(UnsafeRawBufferPointer(slot.pixels), width: slot.width, height: slot.height) }
            condition.withLock {
                slot.result = result
                condition.broadcast()
            }
        }
    }
}
