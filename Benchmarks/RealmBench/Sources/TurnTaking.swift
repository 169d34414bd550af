/// The samples and checksums of workloads that AsyncRealm and SQLite run taking turns.
///
/// Each run measures every workload on both engines before the next run, so that whatever slows
/// the machine for a while (another process, the virtual machine's neighbours) falls on both;
/// the one that goes first alternates, so that neither always finds the caches warm from the
/// other. Run 0 is a warm-up, not recorded.
struct TurnTaking<Workload: Hashable & RawRepresentable> where Workload.RawValue == String {
    private var samples: [String: [Workload: [Double]]] = [:]
    private var checksums: [Workload: [String: Int]] = [:]

    /// Records one measurement of `workload` on `engine` in run `run`.
    mutating func record(_ engine: String, _ workload: Workload, run: Int, seconds: Double, checksum: Int) {
        if run > 0 { samples[engine, default: [:]][workload, default: []].append(seconds) }
        checksums[workload, default: [:]][engine] = checksum
    }

    /// Calls `asyncRealm` and (with `peers`) `sqlite` for each workload, `runs` + 1 times.
    static func alternate(runs: Int, workloads: [Workload], peers: Bool, asyncRealm: (Workload, Int) throws -> Void, sqlite: (Workload, Int) throws -> Void) rethrows {
        for run in 0...runs {
            for workload in workloads {
                if run % 2 == 1, peers { try sqlite(workload, run) }
                try asyncRealm(workload, run)
                if run % 2 == 0, peers { try sqlite(workload, run) }
            }
        }
    }

    /// The median seconds per workload and engine; a warning is printed for a workload whose
    /// engines' checksums differ (they did not do the same work).
    func medians() -> [Workload: [String: Double]] {
        var results: [Workload: [String: Double]] = [:]
        for (engine, byWorkload) in samples {
            for (workload, values) in byWorkload { results[workload, default: [:]][engine] = median(values) }
        }
        for (workload, sums) in checksums where Set(sums.values).count > 1 {
            print("warning: \(workload.rawValue) checksums differ between engines: \(sums)")
        }
        return results
    }
}
