import Foundation
import StorageEngine

/// A directory removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "asyncrealm-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// A small, fast, seedable generator (xorshift64*), so failures replay from their seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
}

/// A seed from the environment (`ASYNCREALM_SEED`) or a fresh one; tests print it on failure.
func testSeed() -> UInt64 {
    if let text = ProcessInfo.processInfo.environment["ASYNCREALM_SEED"], let seed = UInt64(text) { return seed }
    return UInt64.random(in: 1...UInt64.max)
}

/// The rows of table `name` in `snapshot`, as key -> columns.
func contents(of name: String, in snapshot: Snapshot) throws -> [UInt64: [Value]] {
    guard let table = snapshot.tableIfPresent(name) else { return [:] }
    var rows: [UInt64: [Value]] = [:]
    try table.scan { key, row in
        rows[key] = try row.decoded()
        return true
    }
    return rows
}
