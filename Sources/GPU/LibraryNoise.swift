import Foundation

/// What libraries print to standard error themselves while a display is
/// opened (Mesa's loader and GBM: "failed to load driver: vkms", "kmsro:
/// driver missing", harmless where a fallback follows), caught in an unnamed
/// file instead of breaking Kamera's one-line messages, for the log (`-v`).
/// Only around short calls made before other threads write there.
enum LibraryNoise {
    /// Runs `body` with standard error caught (when `catching`); gives its result and the lines caught.
    static func caught<T>(if catching: Bool = true, _ body: () throws -> T) rethrows -> (T, [String]) {
        guard catching else { return (try body(), []) }
        fflush(stderr)
        guard let file = tmpfile() else { return (try body(), []) }
        defer { fclose(file) }
        let saved = dup(STDERR_FILENO)
        guard saved >= 0 else { return (try body(), []) }
        dup2(fileno(file), STDERR_FILENO)
        func restore() {
            fflush(stderr)
            dup2(saved, STDERR_FILENO)
            close(saved)
        }
        let result: T
        do {
            result = try body()
        } catch {
            restore()
            throw error
        }
        restore()
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = pread(fileno(file), &bytes, bytes.count, 0)
        let text = String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self)
        return (result, text.split(separator: "\n").map(String.init))
    }
}
