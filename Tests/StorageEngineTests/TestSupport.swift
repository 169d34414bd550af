import Foundation
@testable import StorageEngine
import TestSupport

/// The key the suites that also run on encrypted files use; nil for their plain runs.
func testKey(encrypted: Bool) -> EncryptionKey? {
    encrypted ? try! EncryptionKey(testEncryptionKeyBytes) : nil
}

/// The rows of table `name` in `snapshot`, as key -> columns.
func contents(of name: String, in snapshot: Snapshot) throws -> [UInt64: [RowValue]] {
    guard let table = snapshot.tableIfPresent(name) else { return [:] }
    var rows: [UInt64: [RowValue]] = [:]
    try table.scan { key, row in
        rows[key] = try row.decoded()
        return true
    }
    return rows
}

/// What is wrong with how the newest version of `file` accounts for its space, or nil: every
/// byte from the end of the header slots to the version's end must lie in exactly one of a page
/// the version references (its catalog, free list and commit record, and every node, overflow
/// page and posting tree of every table and index), a free extent, or an extent waiting for
/// release. A byte in none of them is leaked for good; a byte in two is a page that a later
/// commit may overwrite while a version still reads it.
func spaceAccountingProblem(in file: any FileIO, key: EncryptionKey? = nil) throws -> String? {
    // Tests that change a table's row tree directly leave the catalog's row count behind: only
    // pages and space are checked here.
    try Database.open(file: file, encryptionKey: key).verify(checkingRowCounts: false).damage.first?.description
}
