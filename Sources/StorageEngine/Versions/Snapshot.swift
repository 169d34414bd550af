/// One committed version of a database: immutable, `Sendable`, readable from any thread.
///
/// A snapshot pins its version until the last reference to it goes away; until then no commit
/// reuses space it can see, so it reads exactly what was committed however many versions
/// follow.
package final class Snapshot: Sendable {
    package let version: UInt64
    let catalog: Catalog
    package let store: PageStore
    let pin: PinnedVersion

    init(version: UInt64, catalog: Catalog, store: PageStore, pin: PinnedVersion) {
        self.version = version
        self.catalog = catalog
        self.store = store
        self.pin = pin
    }

    package var tableNames: [String] { catalog.tables.keys.sorted() }

    /// The roots of table `name` in this version, nil if it has none: equal roots in two
    /// versions mean the table did not change between them.
    package func roots(ofTable name: String) -> TableRoots? { catalog.tables[name] }

    /// Whether this is a version of the file `database` is a handle on.
    package func isVersion(of database: Database) -> Bool { store === database.shared.store }

    /// The table named `name`, or nil if this version has none.
    package func tableIfPresent(_ name: String) -> TableReader? {
        catalog.tables[name].map { TableReader(name: name, roots: $0, store: store) }
    }

    /// The table named `name`.
    ///
    /// - Throws: `noSuchTable` if this version has no such table.
    package func table(_ name: String) throws -> TableReader {
        guard let table = tableIfPresent(name) else {
            throw StorageError(.noSuchTable, "version \(version) has no table '\(name)'")
        }
        return table
    }
}
