import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal: standard input read on a thread of its own, so a blocking `read` never holds one of Swift's
/// cooperative threads, and the few terminal settings the UI changes.
enum LineInput {
    /// Starts reading lines, handing each to `deliver`; `nil` marks the end of input.
    static func start(_ deliver: @escaping @Sendable (String?) -> Void) {
        Thread.detachNewThread {
            while let line = readLine(strippingNewline: true) { deliver(line) }
            deliver(nil)
        }
    }

    /// Whether standard output is a terminal (then the screen is redrawn in place).
    static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Turns the terminal's echo of typed characters off (for passwords) or back on; nothing when input is not a
    /// terminal.
    static func setEcho(_ on: Bool) {
        guard isatty(STDIN_FILENO) == 1 else { return }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        let echo = tcflag_t(ECHO)
        let wanted = on ? settings.c_lflag | echo : settings.c_lflag & ~echo
        guard wanted != settings.c_lflag else { return }
        settings.c_lflag = wanted
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}
