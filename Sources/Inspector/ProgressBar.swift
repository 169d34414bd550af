import Glibc

/// A progress bar drawn on stderr while a long command runs, only when stderr is a terminal:
/// piped or redirected, it writes nothing.
final class ProgressBar {
    private let title: String
    private let isShown: Bool
    private var lastDrawn: timespec = timespec()
    private var drawnOnce = false

    init(_ title: String, shown: Bool = Output.error.isTerminal) {
        self.title = title
        isShown = shown
    }

    /// Redraws the bar for `done` of `total` (units are the caller's), at most ten times a second.
    func update(_ done: UInt64, of total: UInt64) {
        guard isShown else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let elapsed = Double(now.tv_sec - lastDrawn.tv_sec) + Double(now.tv_nsec - lastDrawn.tv_nsec) / 1e9
        guard !drawnOnce || elapsed >= 0.1 || done >= total else { return }
        lastDrawn = now
        drawnOnce = true
        Output.error.write("\r" + Self.line(title, done, total))
        Output.error.flush()
    }

    /// Erases the bar, so what follows starts on a clean line.
    func finish() {
        guard isShown, drawnOnce else { return }
        Output.error.write("\r\u{1B}[K")
        Output.error.flush()
    }

    /// The bar's text: `verify [##########..........]  50%`.
    static func line(_ title: String, _ done: UInt64, _ total: UInt64, width: Int = 30) -> String {
        let fraction = total == 0 ? 1 : min(1, Double(done) / Double(total))
        let filled = Int(fraction * Double(width))
        let percent = Int(fraction * 100)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "\(title) [\(bar)] \(String(repeating: " ", count: 3 - String(percent).count))\(percent)%"
    }
}
