import Foundation

/// An element of a sectioned collection's change stream (`SectionedResults.changes`).
///
/// `.initial` comes first; each `.update` then says what changed since the previous element, as
/// a sectioned table view applies it, and as RealmSwift reports it: the sections removed (their
/// positions before) and added (their positions now); the objects removed (at their index paths
/// before, leaving out those of a section removed), added (at their index paths now) and
/// modified (at their index paths before). A modified object whose item in its section changed
/// (its key changed, or it moved in its section) is a deletion and an insertion instead.
public enum RealmSectionedResultsChange<Collection> {
    /// The sections as they are when the consumer first asks: the first element.
    case initial(Collection)
    /// The sections now, with what changed since the previous element.
    case update(
        Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
        sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
}

extension SectionedResults {
    /// A stream of the sections' changes: `.initial`, then an `.update` whenever a commit changes
    /// which objects the results hold, their order, their keys, or an object they hold (its
    /// properties, or those of objects it links to, four links deep).
    public var changes: ChangeStream<RealmSectionedResultsChange<SectionedResults>> {
        stream(paths: ObservedPaths.everything(of: results.info.schema, schemas: results.handle.objectSchemas))
    }

    /// A stream of the sections' changes in which only changes to `keyPaths` count as
    /// modifications. Include the properties the section key is made from, or a change of key
    /// may go unreported.
    ///
    /// - Parameter keyPaths: Dotted property names of the objects.
    /// - Returns: A stream whose first element is `.initial`.
    public func changes(keyPaths: [String]) -> ChangeStream<RealmSectionedResultsChange<SectionedResults>> {
        stream(paths: ObservedPaths.paths(keyPaths, of: results.info.schema, schemas: results.handle.objectSchemas))
    }

    private func stream(paths: ObservedPaths) -> ChangeStream<RealmSectionedResultsChange<SectionedResults>> {
        stream(paths: paths, initial: { .initial($0) }, update: { sectioned, diff, _, _ in diff.change(of: sectioned) })
    }

    /// A stream of changes of these sections: `initial` gives the first element, `update` each
    /// next one (or nil to leave a change out) from what changed and the sections before and
    /// now.
    func stream<Element>(
        paths: ObservedPaths, initial: @escaping (SectionedResults) -> Element,
        update: @escaping (SectionedResults, SectionedDiff<Key>, _ before: [Key], _ now: [Key]) -> Element?
    ) -> ChangeStream<Element> {
        let realm = results.handle
        realm.checkThread()
        // The stream's own grouping: the sections it last reported are its baseline.
        let sectioned = SectionedResults(results: results, grouping: grouping.copy())
        var reported: [SectionGrouping<Key, SectionElement>.Section] = []
        let observer = ResultsObserver(results: results, paths: paths)
        return ChangeStream(core: StreamDriver(realm: realm, observer: MappedObserver(observer) { change in
            switch change {
            case .initial:
                reported = sectioned.grouping.sections(of: sectioned.results)
                return initial(sectioned)
            case .update(_, let deletions, let insertions, let modifications):
                let now = sectioned.grouping.sections(of: sectioned.results)
                defer { reported = now }
                let flat = CollectionDiff(deletions: deletions, insertions: insertions, modifications: modifications)
                return update(sectioned, SectionedDiff(old: reported, new: now, flat: flat), reported.map(\.key), now.map(\.key))
            }
        }))
    }
}

extension ResultsSection {
    /// A stream of the section's changes, as RealmSwift's section observers report them:
    /// `.initial`, then an `.update` whenever a commit changes the section, with only its own
    /// objects and its own position in the index paths and index sets (its position before for
    /// what was removed or modified, now for what was added).
    public var changes: ChangeStream<RealmSectionedResultsChange<ResultsSection>> {
        stream(paths: ObservedPaths.everything(of: parent.results.info.schema, schemas: parent.results.handle.objectSchemas))
    }

    /// A stream of the section's changes in which only changes to `keyPaths` count as
    /// modifications.
    ///
    /// - Parameter keyPaths: Dotted property names of the objects.
    /// - Returns: A stream whose first element is `.initial`.
    public func changes(keyPaths: [String]) -> ChangeStream<RealmSectionedResultsChange<ResultsSection>> {
        stream(paths: ObservedPaths.paths(keyPaths, of: parent.results.info.schema, schemas: parent.results.handle.objectSchemas))
    }

    private func stream(paths: ObservedPaths) -> ChangeStream<RealmSectionedResultsChange<ResultsSection>> {
        let key = key
        return parent.stream(paths: paths, initial: { .initial(ResultsSection(key: key, parent: $0)) }) { sectioned, diff, before, now in
            diff.restricted(to: before.firstIndex(of: key), now: now.firstIndex(of: key)).change(of: ResultsSection(key: key, parent: sectioned))
        }
    }
}

/// What changed between two groupings into sections, in index paths, from what changed in
/// the sorted results they group (`flat`, in positions of the results).
struct SectionedDiff<Key: Hashable> {
    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet()
    var sectionsToDelete = IndexSet()

    init<Element>(old: [SectionGrouping<Key, Element>.Section], new: [SectionGrouping<Key, Element>.Section], flat: CollectionDiff) {
        let oldKeys = Set(old.map(\.key))
        let newKeys = Set(new.map(\.key))
        for (index, section) in old.enumerated() where !newKeys.contains(section.key) { sectionsToDelete.insert(index) }
        for (index, section) in new.enumerated() where !oldKeys.contains(section.key) { sectionsToInsert.insert(index) }
        let before = Self.indexPaths(of: old)
        let now = Self.indexPaths(of: new)
        for position in flat.deletions {
            guard let path = before.byPosition[position], !sectionsToDelete.contains(path.section) else { continue }
            deletions.append(path)
        }
        for position in flat.insertions {
            if let path = now.byPosition[position] { insertions.append(path) }
        }
        addModifications(flat.modifications, before: before, now: now, oldKeys: old.map(\.key), newKeys: new.map(\.key))
        deletions.sort()
        insertions.sort()
        modifications.sort()
    }

    /// Adds the objects modified (at `positions` of the results before). One stays a
    /// modification where its item is the same in its section before and now (RealmSwift
    /// compares them so: item positions in the sections of one key); otherwise it is removed
    /// where it was and inserted where it is.
    private mutating func addModifications(
        _ positions: [Int], before: IndexPaths, now: IndexPaths, oldKeys: [Key], newKeys: [Key]
    ) {
        var modifiedBefore: [Int: Set<Int>] = [:]
        var modifiedNow: [Int: Set<Int>] = [:]
        for position in positions {
            guard let was = before.byPosition[position], let key = before.keyAt[position] else { continue }
            modifiedBefore[was.section, default: []].insert(was.item)
            if let path = now.byKey[key] { modifiedNow[path.section, default: []].insert(path.item) }
        }
        let sectionNow = Dictionary(uniqueKeysWithValues: newKeys.enumerated().map { ($1, $0) })
        for (section, items) in modifiedBefore {
            guard let current = sectionNow[oldKeys[section]] else { continue }
            let kept = items.intersection(modifiedNow[current] ?? [])
            modifiedNow[current]?.subtract(kept)
            modifications += kept.map { IndexPath(item: $0, section: section) }
            deletions += items.subtracting(kept).map { IndexPath(item: $0, section: section) }
        }
        for (section, items) in modifiedNow {
            insertions += items.map { IndexPath(item: $0, section: section) }
        }
    }

    /// Where the objects of some sections are.
    private struct IndexPaths {
        /// Each object's index path, by its position in the results.
        var byPosition: [Int: IndexPath] = [:]
        /// Each object's index path, by its row key.
        var byKey: [UInt64: IndexPath] = [:]
        /// Each object's row key, by its position in the results.
        var keyAt: [Int: UInt64] = [:]
    }

    private static func indexPaths<Element>(of sections: [SectionGrouping<Key, Element>.Section]) -> IndexPaths {
        var paths = IndexPaths()
        for (index, section) in sections.enumerated() {
            for (item, (position, key)) in zip(section.positions, section.objectKeys).enumerated() {
                let path = IndexPath(item: item, section: index)
                paths.byPosition[position] = path
                paths.byKey[key] = path
                paths.keyAt[position] = key
            }
        }
        return paths
    }

    /// The part of the change about one section: at `before` in the sections before (nil if it
    /// was not there) and `now` in the sections now (nil if it is gone).
    func restricted(to before: Int?, now: Int?) -> SectionedDiff {
        var part = self
        part.deletions = deletions.filter { $0.section == before }
        part.modifications = modifications.filter { $0.section == before }
        part.insertions = insertions.filter { $0.section == now }
        part.sectionsToDelete = before.map { sectionsToDelete.contains($0) ? IndexSet(integer: $0) : [] } ?? []
        part.sectionsToInsert = now.map { sectionsToInsert.contains($0) ? IndexSet(integer: $0) : [] } ?? []
        return part
    }

    /// The stream's element for this change of `collection`, nil if nothing changed.
    func change<C>(of collection: C) -> RealmSectionedResultsChange<C>? {
        if deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty {
            return nil
        }
        return .update(collection, deletions: deletions, insertions: insertions, modifications: modifications,
                       sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
    }
}
