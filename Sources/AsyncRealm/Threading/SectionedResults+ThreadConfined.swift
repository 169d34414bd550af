/// Sectioned results and their sections are confined as RealmSwift's are: they pass to another
/// actor or task as a `ThreadSafeReference` or, frozen, as a `Frozen`, and read there the same
/// sections of the same objects.
///
/// The key block travels with them and is called where they are read, as RealmSwift calls it
/// on whatever thread reads the sections: it should read only the object it is given (a key
/// path, a first letter, a day), not state of the actor that made the sections.
extension SectionedResults: ThreadConfined {
    public var _confinedDescription: _ConfinedDescription {
        _ConfinedDescription(kind: .sectioned(results: results._confinedDescription, keyOf: UncheckedSendable(value: grouping.keyOf)))
    }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> SectionedResults? {
        guard case .sectioned(let resultsDescription, let keyOf) = description.kind,
              let keyOf = keyOf.value as? (SectionElement) -> Key,
              let results = Results<SectionElement>._resolve(resultsDescription, in: realm) else { return nil }
        return SectionedResults(results: results, grouping: SectionGrouping(keyOf: keyOf))
    }
}

extension ResultsSection: ThreadConfined {
    public var _confinedDescription: _ConfinedDescription {
        _ConfinedDescription(kind: .section(sections: parent._confinedDescription, key: UncheckedSendable(value: key)))
    }

    public static func _resolve(_ description: _ConfinedDescription, in realm: Realm) -> ResultsSection? {
        guard case .section(let sectionsDescription, let key) = description.kind,
              let key = key.value as? Key,
              let sections = SectionedResults<Key, Element>._resolve(sectionsDescription, in: realm) else { return nil }
        return ResultsSection(key: key, parent: sections)
    }
}
