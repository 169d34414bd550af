import Foundation

/// Results grouped into sections by a key, as RealmSwift's `sectioned(by:)` gives them: the
/// sections of a list with headers, one per first letter, day or category.
///
///     let byLetter = realm.objects(Dog.self).sectioned(by: \.firstLetter)
///     for section in byLetter {
///         print(section.key, section.count)
///     }
///
/// Sections come in the order of their first object in the results, which are sorted (by the
/// key's property, or the sort descriptors given); each holds its objects in that order. Like
/// the results, the sections are live: reading them after a write sees it.
public struct SectionedResults<Key: _Persistable & Hashable, SectionElement: Object>: RandomAccessCollection {
    /// A section of the results.
    public typealias Element = ResultsSection<Key, SectionElement>

    /// The sorted objects the sections group.
    let results: Results<SectionElement>
    let grouping: SectionGrouping<Key, SectionElement>

    init(results: Results<SectionElement>, grouping: SectionGrouping<Key, SectionElement>) {
        self.results = results
        self.grouping = grouping
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// The number of sections now.
    public var endIndex: Int { grouping.sections(of: results).count }

    /// The section at `position`.
    ///
    /// - Parameter position: A position below `count`.
    public subscript(position: Int) -> ResultsSection<Key, SectionElement> {
        let sections = grouping.sections(of: results)
        require(position >= 0 && position < sections.count, "section \(position) is out of bounds for \(sections.count) sections of '\(SectionElement.className())' objects")
        return ResultsSection(key: sections[position].key, parent: self)
    }

    /// The object at `indexPath`: item `indexPath.item` of section `indexPath.section`.
    ///
    /// - Parameter indexPath: A section and an item in it.
    public subscript(indexPath: IndexPath) -> SectionElement {
        self[indexPath.section][indexPath.item]
    }

    /// The key of every section, in the sections' order.
    public var allKeys: [Key] { grouping.sections(of: results).map(\.key) }

    /// The realm the objects belong to.
    public var realm: Realm? { results.realm }

    /// Whether the sections read a frozen realm.
    public var isFrozen: Bool { results.isFrozen }

    /// Whether the realm was invalidated (its sections then read as empty).
    public var isInvalidated: Bool { results.isInvalidated }

    /// The same sections at the realm's current version, never changing, readable from any task
    /// through `Frozen`.
    ///
    /// - Returns: Frozen sections.
    public func freeze() -> SectionedResults {
        isFrozen ? self : SectionedResults(results: results.freeze(), grouping: grouping.copy())
    }

    /// The live sections of frozen ones, in a realm confined to the caller's isolation; live
    /// sections are returned as they are.
    ///
    /// - Parameter isolation: The caller's actor; leave it to its default.
    /// - Returns: Live sections.
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> SectionedResults? {
        guard isFrozen else { return self }
        return results.thaw(isolation: isolation).map { SectionedResults(results: $0, grouping: grouping.copy()) }
    }
}

extension SectionedResults: Equatable {
    /// Whether both are the same sectioned results, as in RealmSwift: made by one call of
    /// `sectioned(by:)` (or copied from it), not two calls with the same arguments.
    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool {
        lhs.grouping === rhs.grouping
    }
}

/// One section of a `SectionedResults`: its key and its objects, in the results' order.
///
/// A section is found by its key whenever it is read, so it stays the section of that key
/// while writes move objects in and out of it; once no object has the key, it is empty.
public struct ResultsSection<Key: _Persistable & Hashable, Element: Object>: RandomAccessCollection, Identifiable {
    /// The key the section's objects share.
    public let key: Key
    let parent: SectionedResults<Key, Element>

    /// The section's key, which identifies it among its results' sections.
    public var id: Key { key }

    private var positions: [Int] { parent.grouping.section(key, of: parent.results)?.positions ?? [] }

    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// The number of objects in the section now.
    public var endIndex: Int { positions.count }

    /// The object at `position` in the section.
    ///
    /// - Parameter position: A position below `count`.
    public subscript(position: Int) -> Element {
        let positions = positions
        require(position >= 0 && position < positions.count, "index \(position) is out of bounds for the \(positions.count) objects of section \(key) of '\(Element.className())' objects")
        return parent.results[positions[position]]
    }

    /// The realm the objects belong to.
    public var realm: Realm? { parent.realm }

    /// Whether the section reads a frozen realm.
    public var isFrozen: Bool { parent.isFrozen }

    /// Whether the realm was invalidated (the section then reads as empty).
    public var isInvalidated: Bool { parent.isInvalidated }

    /// The same section at the realm's current version, never changing.
    ///
    /// - Returns: The section of the same key in frozen sections.
    public func freeze() -> ResultsSection {
        ResultsSection(key: key, parent: parent.freeze())
    }

    /// The live section of a frozen one, in a realm confined to the caller's isolation.
    ///
    /// - Parameter isolation: The caller's actor; leave it to its default.
    /// - Returns: The live section of the same key.
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> ResultsSection? {
        parent.thaw(isolation: isolation).map { ResultsSection(key: key, parent: $0) }
    }
}

extension ResultsSection: Equatable {
    /// Whether both are the section of one key in the same sectioned results (see
    /// `SectionedResults`'s `==`), as RealmSwift's sections compare.
    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool {
        lhs.key == rhs.key && lhs.parent == rhs.parent
    }
}
