/// One engine under test. Every engine does the same logical work for each workload.
protocol BenchEngine: AnyObject {
    /// `asyncrealm`, `sqlite` or `lmdb`: the names used in the JSON report.
    var name: String { get }
    /// Deletes any previous database and inserts every row of `data` in one durable transaction.
    func bulkInsert(_ data: Dataset) throws
    /// Reads every column of every row in key order; returns a checksum of what it read.
    func scan() throws -> Int64
    /// Reads column `column` of each row in `keys`; returns a checksum.
    func randomGet(_ keys: [UInt64], column: Int) throws -> Int64
    /// Inserts the rows `keys` (new keys, columns copied from `data`), one durable transaction each.
    func commitEach(_ keys: ClosedRange<UInt64>, from data: Dataset) throws
    /// Bytes on disk of the database, after the last bulk insert.
    func fileBytes() throws -> UInt64
    /// Closes the database.
    func close()
}

/// The work a benchmark run measures, in the order it runs.
enum Workload: String, CaseIterable {
    case bulkInsert = "EngineBulkInsert"
    case scan = "EngineScan"
    case randomGet = "EngineRandomGet"
    case commit = "EngineCommit"

    /// The target ratio AsyncRealm / SQLite (median seconds).
    var target: Double {
        switch self {
        case .bulkInsert: return 1.0
        case .scan: return 0.5
        case .randomGet: return 1.0
        case .commit: return 1.5
        }
    }
}
