/// The sections of a `SectionedResults`: its results' objects grouped by the key the key block
/// gives each, worked out again when the realm has changed since.
///
/// As in RealmSwift, sections come in the order of their first object in the results, and every
/// object of a key is in that key's section, in the results' order, even when objects of
/// other keys come between them (sort by the key first and they do not).
final class SectionGrouping<Key: Hashable, Element: Object> {
    struct Section {
        let key: Key
        /// The positions in the results of the section's objects.
        var positions: [Int]
        /// The row keys of the section's objects, what a change compares.
        var objectKeys: [UInt64]
    }

    /// The key of an object: what sectioned(by:) was given.
    let keyOf: (Element) -> Key
    private var sections: [Section] = []
    private var indexOfKey: [Key: Int] = [:]
    /// The realm's stamp when `sections` were worked out; nil before the first time.
    private var stamp: Int?

    init(keyOf: @escaping (Element) -> Key) {
        self.keyOf = keyOf
    }

    /// The sections of `results` as they are now.
    func sections(of results: Results<Element>) -> [Section] {
        refresh(results)
        return sections
    }

    /// The section of `key` in `results` as they are now, nil if no object has that key.
    func section(_ key: Key, of results: Results<Element>) -> Section? {
        refresh(results)
        return indexOfKey[key].map { sections[$0] }
    }

    /// A grouping with the same key block and no sections worked out yet: a stream's own
    /// baseline, or the grouping of the same results read by another realm.
    func copy() -> SectionGrouping {
        SectionGrouping(keyOf: keyOf)
    }

    private func refresh(_ results: Results<Element>) {
        let now = results.handle.stamp
        guard stamp != now else { return }
        sections = []
        indexOfKey = [:]
        for (position, object) in results.enumerated() {
            let key = keyOf(object)
            if let index = indexOfKey[key] {
                sections[index].positions.append(position)
                sections[index].objectKeys.append(object.__key)
            } else {
                indexOfKey[key] = sections.count
                sections.append(Section(key: key, positions: [position], objectKeys: [object.__key]))
            }
        }
        stamp = now
    }
}
