/// A check of a whole database file: what `asyncrealm verify` runs.
///
/// Every page the file's newest version references is read from disk (never from the cache),
/// so its checksum (and, encrypted, its MAC) is checked: the catalog, the free list, the commit
/// record, every node of every table's row tree and index trees, every index's posting trees
/// and every overflow page. Each tree's structure is checked as it is walked: keys strictly
/// increasing in each node and inside the bounds its parent gives it, a branch with one child
/// more than it has keys, every leaf at the same depth, and a row tree holding as many rows as
/// the catalog says. Then the space: the pages referenced, the free extents and the extents
/// released at a version must cover the file from its first page to its end exactly once.
extension Database {
    /// One thing wrong with the file.
    package struct Damage: Sendable, Equatable, CustomStringConvertible {
        /// The offset of the damaged page (0 for the header or the space as a whole).
        package var offset: UInt64
        /// The table the page belongs to; nil for the catalog, free list, commit record or space.
        package var table: String?
        /// What holds the page ("rows", "index on column 2", "posting tree of index on column
        /// 2", "overflow value of rows", "catalog", ...), in the engine's words.
        package var structure: String
        package var reason: String

        package var description: String {
            "page at \(offset) (\(structure)\(table.map { " of table '\($0)'" } ?? "")): \(reason)"
        }
    }

    /// What a verification found.
    package struct Verification: Sendable {
        /// The version whose pages were checked (the newest one written into the file).
        package var version: UInt64
        /// How many pages were read and checked.
        package var pagesChecked = 0
        /// How many trees were walked (row trees, index trees and posting trees).
        package var treesChecked = 0
        /// Everything wrong, in the order found; empty for a sound file.
        package var damage: [Damage] = []
    }

    /// Checks every page and tree of the newest version written into the file (commits still
    /// in the redo log were checked as it was replayed, when the database opened).
    ///
    /// - Parameters:
    ///   - checkingRowCounts: whether a row tree must hold as many rows as the catalog says
    ///     (tests that change a row tree directly, not through its table, turn it off).
    ///   - progress: called now and then with the bytes of pages checked so far and the bytes
    ///     the version uses in all, for a progress bar.
    /// - Returns: What was checked and what is wrong. Damage is reported, not thrown.
    /// - Throws: Only when the file's header cannot be read (opening would have failed).
    package func verify(checkingRowCounts: Bool = true, progress: (_ checkedBytes: UInt64, _ totalBytes: UInt64) -> Void = { _, _ in }) throws -> Verification {
        let header = try shared.readHeader().header
        return withoutActuallyEscaping(progress) { progress in
            var walker = VerificationWalk(store: shared.store, header: header, checkingRowCounts: checkingRowCounts, progress: progress)
            walker.walkFile()
            progress(walker.totalBytes, walker.totalBytes)
            return walker.report
        }
    }
}

/// The walk behind `Database.verify`: the pages it has seen and the damage it has found.
private struct VerificationWalk {
    let store: PageStore
    let header: FileHeader
    let checkingRowCounts: Bool
    let progress: (UInt64, UInt64) -> Void
    var report: Database.Verification
    /// Every extent a page of the version occupies, with what it is (for the space check).
    var used: [(extent: Extent, what: String)] = []
    var checkedBytes: UInt64 = 0
    /// The bytes the version's pages take: the file's data less its free space, once the
    /// free list is read.
    var totalBytes: UInt64

    init(store: PageStore, header: FileHeader, checkingRowCounts: Bool, progress: @escaping (UInt64, UInt64) -> Void) {
        self.store = store
        self.header = header
        self.checkingRowCounts = checkingRowCounts
        self.progress = progress
        report = Database.Verification(version: header.version)
        totalBytes = header.end - FileHeader.dataStart
    }

    /// Where a node sits: its table and tree, and the keys its parent allows it.
    struct Place {
        var table: String?
        var structure: String
        var lower: UInt64 = 0
        var upper: UInt64? = nil
        var depth = 0
    }

    mutating func walkFile() {
        let header = header
        let catalog = checkedPage(header.catalog, .catalog, Place(structure: "catalog")) { raw, ref in
            try Catalog.decode(raw, origin: ref.offset)
        }
        let free = checkedPage(header.freeList, .freeList, Place(structure: "free list")) { raw, ref in
            let space = try FreeSpace.decode(raw, origin: ref.offset)
            guard space.end == header.end else {
                throw StorageError.corrupted("free list ends at \(space.end), the header at \(header.end)", at: ref.offset)
            }
            return space
        }
        if let free {
            totalBytes -= min(free.unusedBytes, totalBytes)
        }
        _ = checkedPage(header.commitRecord, .commitRecord, Place(structure: "commit record")) { _, _ in () }
        for (name, roots) in (catalog ?? Catalog()).tables.sorted(by: { $0.key < $1.key }) {
            let damageBefore = report.damage.count
            let rows = walkTree(roots.rows, Place(table: name, structure: "rows"), postingTrees: false)
            // Rows in unreadable pages were not counted: a count differing then says nothing more.
            if checkingRowCounts, rows != roots.rowCount, report.damage.count == damageBefore {
                damage(roots.rows.offset, Place(table: name, structure: "rows"), "holds \(rows) rows; the catalog says \(roots.rowCount)")
            }
            for index in roots.indexes {
                walkTree(index.root, Place(table: name, structure: "index on column \(index.column)"), postingTrees: true)
            }
        }
        if header.freeList.isNull || free != nil { checkSpace(free ?? FreeSpace(end: header.end)) }
    }

    /// Reads the page `ref` of kind `kind` and decodes it, recording damage (and returning nil)
    /// if it cannot be read or decoded; nil without damage for a null reference.
    mutating func checkedPage<Decoded>(
        _ ref: PageRef, _ kind: PageKind, _ place: Place, decode: ([UInt8], PageRef) throws -> Decoded
    ) -> Decoded? {
        guard !ref.isNull else { return nil }
        count(ref, place)
        do {
            return try decode(try store.readPage(ref, expecting: kind), ref)
        } catch {
            damage(ref.offset, place, reason(error))
            return nil
        }
    }

    /// Walks the tree rooted at `root` and returns how many entries its leaves hold.
    @discardableResult
    mutating func walkTree(_ root: PageRef, _ place: Place, postingTrees: Bool) -> UInt64 {
        guard !root.isNull else { return 0 }
        report.treesChecked += 1
        var leafDepth: Int?
        return walkNode(root, place, postingTrees: postingTrees, leafDepth: &leafDepth)
    }

    private mutating func walkNode(_ ref: PageRef, _ place: Place, postingTrees: Bool, leafDepth: inout Int?) -> UInt64 {
        count(ref, place)
        let node: Node
        do {
            node = try store.nodeFromDisk(ref)
        } catch {
            damage(ref.offset, place, reason(error))
            return 0
        }
        switch node {
        case .leaf(let leaf):
            if let depth = leafDepth, depth != place.depth {
                damage(ref.offset, place, "a leaf at depth \(place.depth), where the tree's other leaves are at depth \(depth)")
            }
            leafDepth = leafDepth ?? place.depth
            checkKeys(leaf.keys, at: ref, place)
            walkValues(of: leaf, place, postingTrees: postingTrees)
            return UInt64(leaf.count)
        case .branch(let branch):
            guard branch.children.count == branch.keys.count + 1 else {
                damage(ref.offset, place, "a branch with \(branch.keys.count) keys and \(branch.children.count) children")
                return 0
            }
            checkKeys(branch.keys, at: ref, place)
            var entries: UInt64 = 0
            for (position, child) in branch.children.enumerated() {
                guard case .stored(let childRef) = child else { continue }
                var inner = place
                inner.depth += 1
                inner.lower = position == 0 ? place.lower : branch.keys[position - 1]
                inner.upper = position == branch.keys.count ? place.upper : branch.keys[position]
                entries += walkNode(childRef, inner, postingTrees: postingTrees, leafDepth: &leafDepth)
            }
            return entries
        }
    }

    /// Records damage unless `keys` increase strictly and lie in `place`'s bounds.
    private mutating func checkKeys(_ keys: [UInt64], at ref: PageRef, _ place: Place) {
        for (position, key) in keys.enumerated() {
            if position > 0, keys[position - 1] >= key {
                return damage(ref.offset, place, "keys out of order: \(keys[position - 1]) before \(key)")
            }
            if key < place.lower || place.upper.map({ key >= $0 }) == true {
                return damage(ref.offset, place, "key \(key) outside the range [\(place.lower), \(place.upper.map(String.init) ?? "end")) its parent gives it")
            }
        }
    }

    /// Checks the overflow pages a leaf's values point to, and an index leaf's posting trees.
    private mutating func walkValues(of leaf: Leaf, _ place: Place, postingTrees: Bool) {
        for index in 0..<leaf.count {
            let value = leaf.bytes.withUnsafeBytes { Array($0[leaf.valueRange(at: index)]) }
            if leaf.isOverflow(at: index) {
                let overflow = Place(table: place.table, structure: "overflow value of \(place.structure)")
                guard let descriptor = try? value.withUnsafeBytes({ try OverflowDescriptor.decode($0, origin: 0) }) else {
                    damage(0, overflow, "a leaf holds an unreadable overflow reference")
                    continue
                }
                _ = checkedPage(descriptor.page, .overflow, overflow) { _, _ in () }
            } else if postingTrees {
                let posting = Place(table: place.table, structure: "posting tree of \(place.structure)")
                var roots: [PageRef] = []
                guard (try? value.withUnsafeBytes({ try IndexBucket.forEachPostingTree(in: $0) { _, root in roots.append(root) } })) != nil else {
                    damage(0, posting, "an index bucket that cannot be decoded")
                    continue
                }
                for root in roots { walkTree(root, posting, postingTrees: false) }
            }
        }
    }

    /// Checks that the pages seen, the free extents and the pending ones cover the file's
    /// data from its first page to the version's end, each byte once.
    private mutating func checkSpace(_ free: FreeSpace) {
        var extents = used
        for extent in free.free { extents.append((extent, "free space")) }
        for pending in free.pending {
            for extent in pending.extents { extents.append((extent, "space released at version \(pending.version)")) }
        }
        extents.sort { $0.extent.offset < $1.extent.offset }
        let space = Place(structure: "file space")
        var covered = FileHeader.dataStart
        for (extent, what) in extents {
            if extent.offset < covered {
                damage(extent.offset, space, "\(what) overlaps what ends at \(covered)")
            } else if extent.offset > covered {
                damage(covered, space, "\(extent.offset - covered) bytes neither used nor free (lost space, not lost data)")
            }
            covered = max(covered, extent.end)
        }
        if covered != header.end {
            damage(covered, space, "the pages and free space end at \(covered), the version at \(header.end)")
        }
    }

    private mutating func count(_ ref: PageRef, _ place: Place) {
        report.pagesChecked += 1
        used.append((Extent(ref), "\(place.structure)\(place.table.map { " of '\($0)'" } ?? "")"))
        checkedBytes += Extent(ref).length
        if report.pagesChecked % 256 == 0 { progress(min(checkedBytes, totalBytes), totalBytes) }
    }

    /// What `error` says, without the code and offset the report gives already.
    private func reason(_ error: any Error) -> String {
        (error as? StorageError)?.message ?? "\(error)"
    }

    private mutating func damage(_ offset: UInt64, _ place: Place, _ reason: String) {
        report.damage.append(Database.Damage(offset: offset, table: place.table, structure: place.structure, reason: reason))
    }
}
