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
    let database = try Database.open(file: file, encryptionKey: key)
    let store = database.shared.store
    let header = try FileHeader.read(from: file, cipher: store.cipher) { CommitRecord.isComplete($0, store: store) }.header
    var used: [(extent: Extent, what: String)] = []
    for (ref, what) in [(header.catalog, "catalog"), (header.freeList, "free list"), (header.commitRecord, "commit record")] where !ref.isNull {
        used.append((Extent(ref), what))
    }
    func walk(_ ref: PageRef, _ what: String, postingTrees: Bool) throws {
        guard !ref.isNull else { return }
        used.append((Extent(ref), what))
        switch try store.node(ref) {
        case .branch(let branch):
            for child in branch.children {
                guard case .stored(let childRef) = child else { continue }
                try walk(childRef, what, postingTrees: postingTrees)
            }
        case .leaf(let leaf):
            for index in 0..<leaf.count {
                let value = leaf.bytes.withUnsafeBytes { Array($0[leaf.valueRange(at: index)]) }
                if leaf.isOverflow(at: index) {
                    let descriptor = try value.withUnsafeBytes { try OverflowDescriptor.decode($0, origin: 0) }
                    used.append((Extent(descriptor.page), "overflow value of \(what)"))
                } else if postingTrees {
                    for tree in try value.withUnsafeBytes({ try IndexBucket.postingTrees(in: $0) }) {
                        try walk(tree.root, "posting tree of \(what)", postingTrees: false)
                    }
                }
            }
        }
    }
    for (name, roots) in try database.snapshot().catalog.tables {
        try walk(roots.rows, "rows of '\(name)'", postingTrees: false)
        for index in roots.indexes { try walk(index.root, "index \(index.column) of '\(name)'", postingTrees: true) }
    }
    var freeSpace = FreeSpace(end: header.end)
    if !header.freeList.isNull {
        freeSpace = try FreeSpace.decode(try store.readPage(header.freeList, expecting: .freeList), origin: header.freeList.offset)
    }
    for extent in freeSpace.free { used.append((extent, "free")) }
    for pending in freeSpace.pending {
        for extent in pending.extents { used.append((extent, "released at version \(pending.version)")) }
    }
    used.sort { $0.extent.offset < $1.extent.offset }
    var covered = FileHeader.dataStart
    for (extent, what) in used {
        if extent.offset < covered { return "\(what) at \(extent.offset) overlaps what ends at \(covered)" }
        if extent.offset > covered { return "\(extent.offset - covered) bytes at \(covered) are neither used nor free (next: \(what))" }
        covered = extent.end
    }
    return covered == header.end ? nil : "the pages and free space end at \(covered), the version at \(header.end)"
}
