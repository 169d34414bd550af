import Foundation
import Synchronization

/// The process's resident memory (Linux's `/proc/self/status`), and the peaks seen while each
/// engine's measured work ran: `measure(engine:_:)` resets the kernel's peak (`VmHWM`, through
/// `/proc/self/clear_refs`) before the work and reads it after.
///
/// Both engines run in this process, so a peak includes what the other engine keeps resident
/// (its cache, its data); `growth` is the part the work itself added above the memory resident
/// when it began.
enum ResidentMemory {
    struct Peak {
        var peakBytes = 0
        var growthBytes = 0
    }

    private static let peaks = Mutex<[String: Peak]>([:])

    /// The resident bytes now (`VmRSS`), or its peak since the last reset (`VmHWM`).
    static func bytes(peak: Bool) -> Int {
        let field = peak ? "VmHWM:" : "VmRSS:"
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// Starts a new peak at the resident memory now.
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    static func record(engine: String, peakBytes: Int, growthBytes: Int) {
        peaks.withLock { peaks in
            peaks[engine, default: Peak()].peakBytes = max(peaks[engine]?.peakBytes ?? 0, peakBytes)
            peaks[engine, default: Peak()].growthBytes = max(peaks[engine]?.growthBytes ?? 0, growthBytes)
        }
    }

    /// The peaks recorded since the last call, by engine; starts afresh.
    static func takePeaks() -> [String: Peak] {
        peaks.withLock { peaks in
            defer { peaks = [:] }
            return peaks
        }
    }
}

/// Seconds `body` takes, recording the process's peak resident memory while it ran for `engine`.
func measure(engine: String, _ body: () throws -> Void) rethrows -> Double {
    ResidentMemory.resetPeak()
    let before = ResidentMemory.bytes(peak: false)
    let seconds = try measure(body)
    let peak = ResidentMemory.bytes(peak: true)
    ResidentMemory.record(engine: engine, peakBytes: peak, growthBytes: max(0, peak - before))
    return seconds
}
