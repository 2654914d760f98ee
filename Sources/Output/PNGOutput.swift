/// The PNG images of a run: one file (replaced atomically at each write), a
/// numbered sequence, or a stream of images one after another on standard
/// output, a FIFO or a device, which stays open for the whole run.
///
/// With encoder threads, frames are encoded on them while the next ones
/// render, and written here, in order, as they come back (`finish` writes
/// the rest); without, each is encoded and written in `write`.
public final class PNGOutput {
    public let pattern: OutputPattern
    private let encoder: PNGEncoder
    private let pool: PNGEncodingPool?
    private var stream: OutputFile?
    /// Images written so far.
    public private(set) var written = 0
    /// Hears each path once its image is written.
    public var onWrite: ((String) -> Void)?
    /// The number in the name of frame 0 (`kamera shader --frames 10..19` starts at 10).
    public var firstNumber = 0
    /// The facts each PNG file carries (`tEXt`, `eXIf`); streams carry none.
    public var metadata: (() -> StillMetadata)?

    /// Checks what can be checked for `frames` images before any is rendered.
    public init(_ pattern: OutputPattern, frames: Int = 1, compression: PNGCompression = .default, encoderThreads: Int = 0) throws {
        self.pattern = pattern
        encoder = PNGEncoder(compression: compression)
        try pattern.check(frames: frames)
        pool = encoderThreads > 0 ? PNGEncodingPool(threads: encoderThreads, compression: compression) : nil
    }

    deinit { pool?.stop() }

    /// True when images go one after another to one open stream.
    public var isStream: Bool {
        guard !pattern.isSequence else { return false }
        if OutputFile.isStandardOutput(pattern.pattern) { return true }
        if (try? OutputFile.kind(of: pattern.pattern))?.isInPlace == true { return true }
        return false
    }

    /// Writes frame `index`, or with encoder threads, hands it to them after
    /// writing the oldest frames they have encoded when none is free.
    public func write(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, index: Int) throws {
        guard let pool else {
            try store(try encoder.encode(pixels, width: width, height: height), index: index)
            return
        }
        while !pool.hasFreeSlot { try pool.takeOldest(store) }
        pool.add(pixels, width: width, height: height, index: index)
    }

    /// Writes the frames the encoder threads still hold, in order: after the
    /// input failed mid-run, what was rendered before it is still written.
    /// Nothing more is tried once a write has failed.
    public func writePending() throws {
        guard let pool, !writeFailed else { return }
        while pool.pending > 0 { try pool.takeOldest(store) }
    }

    /// Writes the frames the encoder threads have finished, oldest first,
    /// without waiting for the others: a live run's picture is written as
    /// soon as it is encoded, while the frames after it render.
    public func writeEncoded() throws {
        guard let pool, !writeFailed else { return }
        while pool.oldestIsDone { try pool.takeOldest(store) }
    }

    private var writeFailed = false

    private func store(_ bytes: UnsafeRawBufferPointer, index: Int) throws {
        do {
            try storeOrThrow(bytes, index: index)
        } catch {
            writeFailed = true
            throw error
        }
    }

    private func storeOrThrow(_ bytes: UnsafeRawBufferPointer, index: Int) throws {
        let path = pattern.path(for: firstNumber + index)
        if let stream {
            try stream.write(bytes)
        } else {
            let file = try OutputFile(path: path)
            if let metadata, !file.isStream {
                try PNGMetadataChunks.write(bytes, with: metadata()) { try file.write($0) }
            } else {
                try file.write(bytes)
            }
            if file.isStream && !pattern.isSequence {
                stream = file
            } else {
                try file.commit()
            }
        }
        written += 1
        onWrite?(path)
    }

    /// What has been written, for a message after a failure: how many
    /// images, and which files or where.
    public var writtenSummary: String {
        let count = written == 1 ? "1 frame was" : "\(written) frames were"
        if isStream { return "\(count) written to \(pattern.pattern) before it, \(written == 1 ? "whole" : "each whole")" }
        let first = pattern.path(for: firstNumber), last = pattern.path(for: firstNumber + max(0, written - 1))
        return written == 1 ? "\(count) written before it (\(first)), complete"
            : "\(count) written before it (\(first) to \(last)), each complete"
    }

    /// Writes the frames still with the encoder threads, then closes a
    /// stream; files are complete as soon as each is written.
    public func finish() throws {
        try writePending()
        try stream?.commit()
        stream = nil
    }
}
