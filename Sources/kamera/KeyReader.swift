import CommandLineSupport
import Glibc
import Lifecycle

/// Single key presses from standard input, without waiting: on a terminal it
/// switches to raw mode (no echo, no line buffering) and restores the
/// terminal in `restore()`; from a pipe it reads bytes as they come.
final class KeyReader {
    private var saved: termios?

    init() {
        guard isatty(STDIN_FILENO) != 0 else { return }
        var attributes = termios()
        guard tcgetattr(STDIN_FILENO, &attributes) == 0 else { return }
        saved = attributes
        StopSignal.restoreOnForcedExit(attributes)
        attributes.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &attributes)
    }

    deinit { restore() }

    /// Puts the terminal back as it was.
    func restore() {
        guard var attributes = saved else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &attributes)
        saved = nil
        StopSignal.restoreOnForcedExit(nil)
    }

    /// The next key pressed, or nil when none is waiting.
    func next() -> UInt8? {
        var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 0) > 0, poller.revents & Int16(POLLIN) != 0 else { return nil }
        var byte: UInt8 = 0
        return read(STDIN_FILENO, &byte, 1) == 1 ? byte : nil
    }
}
