import Foundation

/// An element of a sectioned collection's change stream (`SectionedResults.changes`).
///
/// `.initial` comes first; each `.update` then says what changed since the previous element, as
/// a sectioned table view applies it: the sections removed (their positions before) and added
/// (their positions now), and in the sections that stayed, the objects removed and modified (at
/// their index paths before) and added (at their index paths now). The objects of a section
/// removed or added are not listed one by one. An object whose key changed moves: a deletion
/// from its old section, an insertion into its new one.
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
                return .initial(sectioned)
            case .update(_, _, _, let modifications):
                let flatKeys = reported.flatMap(\.objectKeys)
                let positions = reported.flatMap(\.positions)
                var keyAt: [Int: UInt64] = [:]
                for (position, key) in zip(positions, flatKeys) { keyAt[position] = key }
                let modified = Set(modifications.compactMap { keyAt[$0] })
                let now = sectioned.grouping.sections(of: sectioned.results)
                defer { reported = now }
                return SectionedDiff(old: reported, new: now, modified: modified).change(of: sectioned)
            }
        }))
    }
}

/// What changed between two groupings into sections, in index paths.
struct SectionedDiff<Key: Hashable> {
    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet()
    var sectionsToDelete = IndexSet()

    init<Element>(old: [SectionGrouping<Key, Element>.Section], new: [SectionGrouping<Key, Element>.Section], modified: Set<UInt64>) {
        var oldIndex: [Key: Int] = [:]
        for (index, section) in old.enumerated() { oldIndex[section.key] = index }
        var newKeys = Set<Key>()
        for (index, section) in new.enumerated() {
            newKeys.insert(section.key)
            guard let was = oldIndex[section.key] else {
                sectionsToInsert.insert(index)
                continue
            }
            let diff = CollectionDiff.ofKeys(old: old[was].objectKeys, new: section.objectKeys, modified: modified)
            deletions += diff.deletions.map { IndexPath(item: $0, section: was) }
            insertions += diff.insertions.map { IndexPath(item: $0, section: index) }
            modifications += diff.modifications.map { IndexPath(item: $0, section: was) }
        }
        for (index, section) in old.enumerated() where !newKeys.contains(section.key) { sectionsToDelete.insert(index) }
        deletions.sort()
        insertions.sort()
        modifications.sort()
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
