/// The root of one secondary index.
package struct IndexRoots: Sendable, Equatable {
    package var column: Int
    package var unique: Bool
    package var root: PageRef

    package init(column: Int, unique: Bool, root: PageRef = .null) {
        self.column = column
        self.unique = unique
        self.root = root
    }
}

/// Everything a snapshot needs to read one table.
package struct TableRoots: Sendable, Equatable {
    /// Row tree: object key -> encoded row.
    package var rows: PageRef = .null
    package var rowCount: UInt64 = 0
    /// The key `insert` hands out next; keys are never reused within a table.
    package var nextKey: UInt64 = 1
    package var indexes: [IndexRoots] = []

    package init() {}
}

/// Table name -> roots, stored in one catalog page per version.
///
/// Layout: table count (varint); per table in name order: name length (varint), UTF-8 name,
/// rows root (PageRef), row count, next key (varints), index count (varint), and per index
/// column (varint), unique flag (byte), root (PageRef).
package struct Catalog: Sendable, Equatable {
    package var tables: [String: TableRoots] = [:]

    package init() {}

    package func encode(into writer: inout ByteWriter) {
        writer.appendVarint(UInt64(tables.count))
        for name in tables.keys.sorted() {
            let roots = tables[name]!
            let utf8 = Array(name.utf8)
            writer.appendVarint(UInt64(utf8.count))
            writer.append(contentsOf: utf8)
            roots.rows.write(to: &writer)
            writer.appendVarint(roots.rowCount)
            writer.appendVarint(roots.nextKey)
            writer.appendVarint(UInt64(roots.indexes.count))
            for index in roots.indexes {
                writer.appendVarint(UInt64(index.column))
                writer.append(index.unique ? 1 : 0)
                index.root.write(to: &writer)
            }
        }
    }

    package static func decode(_ raw: [UInt8], origin: UInt64) throws -> Catalog {
        try raw.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, origin: origin)
            var catalog = Catalog()
            let count = try reader.readLength(limit: buffer.count)
            for _ in 0..<count {
                let name = String(decoding: try reader.readBytes(try reader.readLength(limit: reader.remaining)), as: UTF8.self)
                var roots = TableRoots()
                roots.rows = try PageRef.read(from: &reader)
                roots.rowCount = try reader.readVarint()
                roots.nextKey = try reader.readVarint()
                let indexCount = try reader.readLength(limit: reader.remaining)
                for _ in 0..<indexCount {
                    let column = try reader.readLength(limit: 1 << 20)
                    let unique = try reader.readByte() != 0
                    roots.indexes.append(IndexRoots(column: column, unique: unique, root: try PageRef.read(from: &reader)))
                }
                catalog.tables[name] = roots
            }
            guard reader.isAtEnd else { throw reader.corrupted("catalog has stray bytes") }
            return catalog
        }
    }

    /// Reads the catalog page `ref` (an empty catalog for a null reference).
    package static func load(_ ref: PageRef, from store: PageStore) throws -> Catalog {
        guard !ref.isNull else { return Catalog() }
        return try decode(try store.readPage(ref, expecting: .catalog), origin: ref.offset)
    }
}
