import Foundation
import StorageEngine

/// Evaluates a bound predicate on objects as a realm reads them now.
///
/// Rows are read as `[RowValue]`; key paths through links, lists and linking objects read the rows
/// they reach (tables found once per class and evaluation).
final class QueryEvaluator {
    /// An object reached while evaluating: its class, key and row. An object read through its
    /// accessor (`accessor`: an unmanaged object, or one of the objects of an unmanaged list)
    /// has its value columns in `row`, and its links and lists are followed through the
    /// accessor rather than through this realm's tables.
    struct ObjectRow {
        let schema: ObjectSchema
        let key: UInt64
        let row: [RowValue]
        var accessor: Object?

        init(schema: ObjectSchema, key: UInt64, row: [RowValue]) {
            self.schema = schema
            self.key = key
            self.row = row
        }

        /// `object` read through its accessor, managed by any realm or by none. An unmanaged
        /// object's key is its identity, which no stored object's key equals.
        init(accessor object: Object, realm: Realm) {
            schema = object.objectSchema
            if let managed = object.managed {
                key = managed.key
                row = managed.realm.currentRow(managed)
            } else {
                key = UInt64(UInt(bitPattern: ObjectIdentifier(object).hashValue)) | 1 << 63
                row = Self.unmanagedRow(of: object, schema: schema, realm: realm)
            }
            accessor = object
        }

        /// The value columns of an unmanaged object, from its `@Persisted` storage (links and
        /// lists, read through the accessor, are left null).
        private static func unmanagedRow(of object: Object, schema: ObjectSchema, realm: Realm) -> [RowValue] {
            var storages: [String: PersistedPropertyDescribing] = [:]
            var mirror: Mirror? = Mirror(reflecting: object)
            while let current = mirror {
                for child in current.children {
                    if let label = child.label, label.hasPrefix("_"), let persisted = child.value as? PersistedPropertyDescribing {
                        storages[String(label.dropFirst())] = persisted
                    }
                }
                mirror = current.superclassMirror
            }
            return schema.storedProperties.map { property in
                guard property.type != .object, !property.isCollection, let storage = storages[property.name] else { return .null }
                return storage.storageValue(realm: realm)
            }
        }
    }

    private let realm: Realm
    private var tables: [String: any TableReading] = [:]

    init(realm: Realm) {
        self.realm = realm
    }

    func matches(_ predicate: BoundPredicate, _ object: ObjectRow) -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .not(let inner): return !matches(inner, object)
        case .and(let operands): return operands.allSatisfy { matches($0, object) }
        case .or(let operands): return operands.contains { matches($0, object) }
        case .comparison(let comparison): return evaluate(comparison, object)
        }
    }

    /// `predicate` as one closure, built once per query rather than walked per object; integer
    /// columns compared with integer constants are tested on the stored integers directly.
    func compile(_ predicate: BoundPredicate) -> (ObjectRow) -> Bool {
        switch predicate {
        case .constant(let value):
            return { _ in value }
        case .not(let inner):
            let test = compile(inner)
            return { !test($0) }
        case .and(let operands):
            let tests = operands.map(compile)
            if tests.count == 2 {
                let (first, second) = (tests[0], tests[1])
                return { first($0) && second($0) }
            }
            return { object in tests.allSatisfy { $0(object) } }
        case .or(let operands):
            let tests = operands.map(compile)
            if tests.count == 2 {
                let (first, second) = (tests[0], tests[1])
                return { first($0) || second($0) }
            }
            return { object in tests.contains { $0(object) } }
        case .comparison(let comparison):
            if let integers = Self.integerTest(comparison) { return integers }
            return { [unowned self] in self.evaluate(comparison, $0) }
        }
    }

    /// Whether the stored `row` matches `predicate`, walking the predicate: for the few rows an
    /// index gives, where compiling would cost more. Nil when the walk meets a comparison with
    /// no row test (`BoundComparison.rowTest`; integer comparisons and ASCII string tests on the
    /// object's own columns have one): the caller then evaluates the objects instead. (One walk
    /// that tells both, not a walk to ask first: each walk of an `and` copies both its sides.)
    static func matchesOnRow(_ predicate: BoundPredicate, _ row: RowView) throws -> Bool? {
        switch predicate {
        case .constant(let value): return value
        case .not(let inner): return try matchesOnRow(inner, row).map(!)
        case .and(let operands):
            for operand in operands {
                guard let holds = try matchesOnRow(operand, row) else { return nil }
                if !holds { return false }
            }
            return true
        case .or(let operands):
            for operand in operands {
                guard let holds = try matchesOnRow(operand, row) else { return nil }
                if holds { return true }
            }
            return false
        case .comparison(let comparison):
            guard comparison.testsOnRow else { return nil }
            return try comparison.rowTest.unsafelyUnwrapped.matches(row, comparison)
        }
    }

    /// `predicate` as closures over the stored row itself, for a scan: built once, then called
    /// per row. Nil unless every comparison in it has a row test (`BoundComparison.rowTest`).
    static func compileOnRows(_ predicate: BoundPredicate) -> ((RowView) throws -> Bool)? {
        switch predicate {
        case .constant(let value):
            return { _ in value }
        case .not(let inner):
            guard let test = compileOnRows(inner) else { return nil }
            return { try !test($0) }
        case .and(let operands):
            guard let tests = compileOnRows(all: operands) else { return nil }
            if tests.count == 2 {
                let (first, second) = (tests[0], tests[1])
                return { try first($0) && second($0) }
            }
            return { row in try tests.allSatisfy { try $0(row) } }
        case .or(let operands):
            guard let tests = compileOnRows(all: operands) else { return nil }
            if tests.count == 2 {
                let (first, second) = (tests[0], tests[1])
                return { try first($0) || second($0) }
            }
            return { row in try tests.contains { try $0(row) } }
        case .comparison(let comparison):
            // Each kind in a closure of its own: a scan calls it per row, with no switch over
            // the kind and nothing copied out of the comparison.
            switch comparison.rowTest {
            case .integer(let column, let test, let nilHolds)?:
                return { try test.matches($0, column: column, nilHolds: nilHolds) }
            case .asciiString(let test)?:
                return test.compiled(comparison)
            case nil:
                return nil
            }
        }
    }

    /// Each of `operands` compiled on rows; nil if one has no row test.
    private static func compileOnRows(all operands: [BoundPredicate]) -> [(RowView) throws -> Bool]? {
        var tests: [(RowView) throws -> Bool] = []
        tests.reserveCapacity(operands.count)
        for operand in operands {
            guard let test = compileOnRows(operand) else { return nil }
            tests.append(test)
        }
        return tests
    }

    /// A test of an integer column against integer constants on the stored values, or nil.
    private static func integerTest(_ comparison: BoundComparison) -> ((ObjectRow) -> Bool)? {
        guard case .integer(let column, let test, let nilHolds)? = comparison.rowTest else { return nil }
        return { object in
            guard column < object.row.count, case .int(let value) = object.row[column] else { return nilHolds }
            return test.holds(value)
        }
    }

    // MARK: Reading

    private func table(named name: String) -> (any TableReading)? {
        if let table = tables[name] { return table }
        let table = realm.readTable(named: name)
        if let table { tables[name] = table }
        return table
    }

    private func object(_ key: UInt64, of schema: ObjectSchema) -> ObjectRow? {
        guard let table = table(named: SchemaStore.tableName(forClass: schema.className)),
              let row = readOrStop({ try table.row(key) }) else { return nil }
        return ObjectRow(schema: schema, key: key, row: row)
    }

    private enum Reached {
        case objects([ObjectRow])
        case values([QueryScalar])
    }

    /// What `path` reaches from `start`: objects (a path ending at a link, list of objects or
    /// linking objects) or values. A to-one link that is nil, on a path through no collection,
    /// reaches a nil value, so that `owner.name == nil` holds for an object without owner.
    /// `convert` makes the values reached of what is stored (`@type` asks for their kinds).
    private func reach(
        _ path: BoundKeyPath, from start: ObjectRow, convert: (RowValue, PropertyType) -> QueryScalar = QueryScalar.init(stored:type:)
    ) -> Reached {
        var objects = [start]
        for (index, hop) in path.hops.enumerated() {
            let isLast = index == path.hops.count - 1
            switch hop {
            case .value(let column):
                return .values(objects.map { convert(column < $0.row.count ? $0.row[column] : .null, path.property.type) })
            case .mixed(let column, let steps):
                return .values(objects.flatMap { object -> [QueryScalar] in
                    let stored = column < object.row.count ? object.row[column] : .null
                    let reached = steps.reduce([stored]) { BoundKeyPath.MixedStep.apply($1, to: $0) }
                    // A subscript that finds nothing, on a path to one value, reaches nil (as a
                    // map's missing key does).
                    if reached.isEmpty && !path.isCollection && !steps.contains(.all) { return [.null] }
                    return reached.map { convert($0, .any) }
                })
            case .link(let column, let target):
                var next: [ObjectRow] = []
                for object in objects {
                    if let accessor = object.accessor {
                        if let linked = accessor.value(forKey: object.schema.storedProperties[column].name) as? Object {
                            next.append(ObjectRow(accessor: linked, realm: realm))
                        } else if !path.isCollection {
                            return .values([.null])
                        }
                    } else if case .objectKey(let key) = column < object.row.count ? object.row[column] : .null, let linked = self.object(key, of: target) {
                        next.append(linked)
                    } else if !path.isCollection {
                        return .values([.null])
                    }
                }
                objects = next
            case .list(let column, let tableName, let target):
                if objects.contains(where: { $0.accessor != nil }) {
                    let reached = reachThroughAccessors(objects, list: column, target: target, type: path.property.type, convert: convert)
                    if target == nil || isLast { return reached }
                    guard case .objects(let next) = reached else { return reached }
                    objects = next
                    continue
                }
                var elements: [RowValue] = []
                for object in objects {
                    let count = ListStore.count(column < object.row.count ? object.row[column] : .null)
                    guard count > 0, let table = table(named: tableName) else { continue }
                    elements += readOrStop { try ListStore.elements(in: table, owner: object.key, count: count) }
                }
                guard let target else {
                    return .values(elements.map { convert($0, path.property.type) })
                }
                objects = elements.compactMap { element in
                    guard case .objectKey(let key) = element else { return nil }
                    return self.object(key, of: target)
                }
            case .map(let column, let tableName, let select, let target):
                let (keys, values) = mapEntries(of: objects, column: column, table: tableName, select: select)
                if select == .keys { return .values(keys.map { convert(.string($0), .string) }) }
                guard let target else { return .values(values.map { convert($0.stored, path.property.type) }) }
                objects = values.compactMap { value in
                    if let object = value.object { return ObjectRow(accessor: object, realm: realm) }
                    guard case .objectKey(let key) = value.stored else { return nil }
                    return self.object(key, of: target)
                }
                if objects.isEmpty && !path.isCollection { return .values([.null]) }
            case .allBacklinks(let links):
                objects = objects.flatMap { object in links.flatMap { backlinks(of: object, through: $0.property, origin: $0.origin) } }
            case .backlinks(let property, let origin):
                objects = objects.flatMap { backlinks(of: $0, through: property, origin: origin) }
            }
            if isLast { return .objects(objects) }
        }
        return .objects(objects)
    }

    /// The objects of `origin` whose link or collection `property` (backlinks, as a
    /// `LinkingObjects` is) holds `object`.
    private func backlinks(of object: ObjectRow, through property: Property, origin: ObjectSchema) -> [ObjectRow] {
        // Read through its accessor, an object's backlinks are found in its own realm (an
        // unmanaged list's objects may belong to any), for a declared `LinkingObjects` and
        // `@links` alike; an unmanaged object has none.
        if let accessor = object.accessor {
            guard let managed = accessor.managed else { return [] }
            let owners = managed.realm
            let info = owners.dynamicClassInfo(origin.className)
            return owners.linkingKeys(to: managed.key, of: object.schema.className, through: property).map {
                ObjectRow(accessor: owners.accessor(of: DynamicObject.self, key: $0, info: info), realm: realm)
            }
        }
        return realm.linkingKeys(to: object.key, of: object.schema.className, through: property).compactMap { self.object($0, of: origin) }
    }

    /// What the list `column` of `objects`, read through their accessors, holds: the objects of
    /// a list of objects (`target`), or the values of a list of values.
    private func reachThroughAccessors(
        _ objects: [ObjectRow], list column: Int, target: ObjectSchema?, type: PropertyType, convert: (RowValue, PropertyType) -> QueryScalar
    ) -> Reached {
        var elements: [Any] = []
        for object in objects {
            guard let accessor = object.accessor,
                  let list = accessor.value(forKey: object.schema.storedProperties[column].name) as? any Sequence else { continue }
            elements += anyElements(of: list)
        }
        guard target != nil else {
            return .values(elements.map { convert(($0 as? any _Persistable)?._toStorage(realm: realm).value ?? .null, type) })
        }
        return .objects(elements.compactMap { ($0 as? Object).map { ObjectRow(accessor: $0, realm: realm) } })
    }

    /// The entries the map `column` of `objects` holds, the part `select` names: every key, or
    /// the values (every one, or the one under a key, nil where an object's map lacks it). A
    /// value read through an accessor (an unmanaged object's map) comes with its object, if any.
    private func mapEntries(of objects: [ObjectRow], column: Int, table tableName: String, select: BoundKeyPath.MapSelection)
        -> (keys: [String], values: [(stored: RowValue, object: Object?)]) {
        var keys: [String] = []
        var values: [(stored: RowValue, object: Object?)] = []
        for object in objects {
            var entries: [(key: String, stored: RowValue, object: Object?)] = []
            if let accessor = object.accessor {
                let map = accessor.value(forKey: object.schema.storedProperties[column].name) as? any MapEntriesReading
                entries = map?.anyEntries.map { entry in
                    let object = entry.value as? Object
                    let stored = object.map { _ in RowValue.null } ?? (entry.value as? any _Persistable)?._toStorage(realm: realm).value ?? .null
                    return (entry.key, stored, object)
                } ?? []
            } else {
                let count = ListStore.count(column < object.row.count ? object.row[column] : .null)
                if count > 0, let table = table(named: tableName) {
                    entries = readOrStop { try MapStore.entries(in: table, owner: object.key, count: count) }.map { ($0.key, $0.value, nil) }
                }
            }
            switch select {
            case .keys: keys += entries.map(\.key)
            case .values: values += entries.map { ($0.stored, $0.object) }
            case .key(let key):
                let found = entries.first { MapStore.sameKey($0.key, key) }
                values.append(found.map { ($0.stored, $0.object) } ?? (.null, nil))
            }
        }
        return (keys, values)
    }

    /// The value `path` (one through no collection) reaches from object `key`; nil if the
    /// object is gone.
    func value(of path: BoundKeyPath, key: UInt64, schema: ObjectSchema) -> QueryScalar? {
        guard let object = object(key, of: schema) else { return nil }
        return values(of: path, from: object).first ?? .null
    }

    /// The value `path` (one through no collection) reaches from `object`.
    func value(of path: BoundKeyPath, from object: ObjectRow) -> QueryScalar {
        values(of: path, from: object).first ?? .null
    }

    private func values(of path: BoundKeyPath, from object: ObjectRow) -> [QueryScalar] {
        switch reach(path, from: object) {
        case .values(let values): return values
        case .objects(let objects): return objects.map { .object($0.key) }
        }
    }

    private func side(_ side: BoundComparison.Side, _ object: ObjectRow) -> [QueryScalar] {
        switch side {
        case .constant(let values):
            return values
        case .path(let path, nil):
            return values(of: path, from: object)
        case .path(let path, .type?):
            return kinds(of: path, from: object)
        case .path(let path, let aggregate?):
            return [Self.aggregate(aggregate, of: values(of: path, from: object))]
        case .subqueryCount(let path, let predicate):
            guard case .objects(let objects) = reach(path, from: object) else { return [.int(0)] }
            return [.int(Int64(objects.filter { matches(predicate, $0) }.count))]
        }
    }

    /// The kinds of the values `path` reaches (see `ValueKinds`), as integers: one for a
    /// property of one type, the kind of each value an `AnyRealmValue` holds.
    private func kinds(of path: BoundKeyPath, from object: ObjectRow) -> [QueryScalar] {
        guard path.property.type == .any else { return [.int(ValueKinds.kind(of: path.property.type))] }
        switch reach(path, from: object, convert: { stored, _ in .int(ValueKinds.kind(ofMixed: stored)) }) {
        case .values(let values): return values.map { $0 == .null ? .int(ValueKinds.null) : $0 }
        case .objects(let objects): return objects.map { _ in .int(ValueKinds.object) }
        }
    }

    private static func aggregate(_ aggregate: BoundComparison.Aggregate, of values: [QueryScalar]) -> QueryScalar {
        // Null and NaN are left out of every aggregate but the count, as in Realm.
        let present = values.filter(\.isAggregated)
        switch aggregate {
        case .type:
            return .null
        case .count, .size:
            return .int(Int64(values.count))
        case .min:
            return present.min { (QueryScalar.order($0, $1) ?? 0) < 0 } ?? .null
        case .max:
            return present.max { (QueryScalar.order($0, $1) ?? 0) < 0 } ?? .null
        case .sum, .avg:
            // Integers add up exactly, in 128 bits; a sum past Int64 is a decimal, which
            // compares with any number.
            var wide: Int128 = 0
            var reals = DoubleSum()
            var decimal = Decimal(0)
            var kind = 0  // 0 integers, 1 doubles, 2 decimals
            for value in present {
                switch value {
                case .int(let number): wide += Int128(number)
                case .double(let number): reals.add(number); kind = max(kind, 1)
                case .decimal(let number): decimal += number; kind = 2
                default: break
                }
            }
            let integer = Decimal(wide)
            let real = reals.total
            if aggregate == .sum {
                switch kind {
                case 0: return Int64(exactly: wide).map(QueryScalar.int) ?? .decimal(integer)
                case 1: return .double(real + Double(wide))
                default: return .decimal(decimal + integer + Decimal(real))
                }
            }
            guard !present.isEmpty else { return .null }
            switch kind {
            case 2: return .decimal((decimal + integer + Decimal(real)) / Decimal(present.count))
            default: return .double((real + Double(wide)) / Double(present.count))
            }
        }
    }

    // MARK: Comparing

    private func evaluate(_ comparison: BoundComparison, _ object: ObjectRow) -> Bool {
        // The common case, a column of the object itself against constants: no arrays built.
        if let direct = comparison.direct {
            let value = QueryScalar(stored: direct.column < object.row.count ? object.row[direct.column] : .null, type: direct.type)
            return test(value, comparison, direct.constants)
        }
        let left = side(comparison.left, object)
        let right = side(comparison.right, object)
        var test: (QueryScalar) -> Bool = { value in self.test(value, comparison, right) }
        if case .path(_, .type?) = comparison.left { test = { kind in Self.kindTest(kind, comparison.op, right) } }
        switch comparison.quantifier {
        case .all?: return left.allSatisfy(test)
        case .noElement?: return !left.contains(where: test)
        case .any?, nil: return left.contains(where: test)
        }
    }

    private func test(_ value: QueryScalar, _ comparison: BoundComparison, _ right: [QueryScalar]) -> Bool {
        switch comparison.op {
        case .in:
            return right.contains { Self.equal(value, $0, comparison) }
        case .between:
            guard right.count == 2, let low = QueryScalar.order(value, right[0]), let high = QueryScalar.order(value, right[1]) else { return false }
            return low >= 0 && high <= 0
        default:
            // A key path on the right (age > otherAge, or through a list) matches any of its values.
            return right.contains { Self.single(value, comparison, $0) }
        }
    }

    /// Whether a value's kind (a bit, see `ValueKinds`) is one of the kinds named on the right
    /// (`==`, `IN`), or none of them (`!=`).
    private static func kindTest(_ kind: QueryScalar, _ op: QueryComparison.Operator, _ named: [QueryScalar]) -> Bool {
        guard case .int(let bit) = kind else { return false }
        let matches = named.contains { if case .int(let kinds) = $0 { bit & kinds != 0 } else { false } }
        return op == .notEqual ? !matches : matches
    }

    static func single(_ value: QueryScalar, _ comparison: BoundComparison, _ other: QueryScalar) -> Bool {
        switch comparison.op {
        case .equal: return Self.equal(value, other, comparison)
        case .notEqual: return !Self.equal(value, other, comparison)
        case .less: return QueryScalar.order(value, other).map { $0 < 0 } ?? false
        case .lessOrEqual: return QueryScalar.order(value, other).map { $0 <= 0 } ?? false
        case .greater: return QueryScalar.order(value, other).map { $0 > 0 } ?? false
        case .greaterOrEqual: return QueryScalar.order(value, other).map { $0 >= 0 } ?? false
        case .beginsWith, .endsWith, .contains, .like:
            return Self.stringTest(value, comparison, other)
        case .in, .between:
            return false
        }
    }

    private static func equal(_ value: QueryScalar, _ other: QueryScalar, _ comparison: BoundComparison) -> Bool {
        if case .string(let a) = value, case .string(let b) = other, comparison.caseInsensitive || comparison.diacriticInsensitive {
            return QueryScalar.compareBytes(Self.fold(a, comparison), Self.fold(b, comparison)) == 0
        }
        return QueryScalar.equal(value, other)
    }

    private static func fold(_ text: String, _ comparison: BoundComparison) -> String {
        if comparison.caseInsensitive, text.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII folds by lowering letters, without Foundation's Unicode folding.
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        var options: String.CompareOptions = []
        if comparison.caseInsensitive { options.insert(.caseInsensitive) }
        if comparison.diacriticInsensitive { options.insert(.diacriticInsensitive) }
        return options.isEmpty ? text : text.folding(options: options, locale: nil)
    }

    private static func stringTest(_ value: QueryScalar, _ comparison: BoundComparison, _ other: QueryScalar) -> Bool {
        switch (value, other) {
        case (.string(let text), .string(let pattern)) where comparison.op != .like && !comparison.diacriticInsensitive:
            if let result = Self.asciiTest(text, pattern, comparison.op, caseInsensitive: comparison.caseInsensitive) {
                return result
            }
            fallthrough
        case (.string(let text), .string(let pattern)) where comparison.op != .like:
            // Byte-wise on UTF-8: for these three, matching scalars and matching their UTF-8
            // encodings agree.
            let subject = Array(Self.fold(text, comparison).utf8)
            let needle = Array(Self.fold(pattern, comparison).utf8)
            switch comparison.op {
            case .beginsWith: return subject.starts(with: needle)
            case .endsWith: return subject.reversed().starts(with: needle.reversed())
            default: return needle.isEmpty || Self.contains(subject, needle)
            }
        case (.string(let text), .string(let pattern)):
            let subject = Array(Self.fold(text, comparison).unicodeScalars)
            let needle = Array(Self.fold(pattern, comparison).unicodeScalars)
            switch comparison.op {
            case .beginsWith: return subject.starts(with: needle)
            case .endsWith: return subject.reversed().starts(with: needle.reversed())
            case .contains: return needle.isEmpty || Self.contains(subject, needle)
            default: return Self.like(subject[...], needle[...])
            }
        case (.data(let bytes), .data(let needle)):
            return Self.bytesTest(bytes, needle, comparison.op)
        case (.data(let bytes), .string(let text)):
            return Self.bytesTest(bytes, Array(text.utf8), comparison.op)
        default:
            return false
        }
    }

    /// BEGINSWITH, ENDSWITH or CONTAINS on two ASCII strings, in place (no folded copies);
    /// nil if either is not ASCII, for the general path to decide.
    private static func asciiTest(_ text: String, _ pattern: String, _ op: QueryComparison.Operator, caseInsensitive: Bool) -> Bool? {
        text.withUTF8InPlace { subject in
            pattern.withUTF8InPlace { needle -> Bool? in
                @inline(__always) func folded(_ byte: UInt8) -> UInt8 {
                    caseInsensitive && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                }
                guard needle.allSatisfy({ $0 < 0x80 }), subject.allSatisfy({ $0 < 0x80 }) else { return nil }
                guard needle.count <= subject.count else { return false }
                func matches(at start: Int) -> Bool {
                    for offset in 0..<needle.count where folded(subject[start + offset]) != folded(needle[offset]) { return false }
                    return true
                }
                switch op {
                case .beginsWith: return matches(at: 0)
                case .endsWith: return matches(at: subject.count - needle.count)
                case _ where needle.count > SubstringSearch<UInt8>.longNeedle:
                    return SubstringSearch(needle.map(folded)).isFound(in: subject.count) { folded(subject[$0]) }
                default: return (0...(subject.count - needle.count)).contains(where: matches)
                }
            }
        }
    }

    private static func bytesTest(_ bytes: [UInt8], _ needle: [UInt8], _ op: QueryComparison.Operator) -> Bool {
        switch op {
        case .beginsWith: return bytes.starts(with: needle)
        case .endsWith: return bytes.reversed().starts(with: needle.reversed())
        case .contains: return needle.isEmpty || Self.contains(bytes, needle)
        default: return false
        }
    }

    private static func contains<Element: Equatable>(_ haystack: [Element], _ needle: [Element]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        if needle.count > SubstringSearch<Element>.longNeedle {
            return SubstringSearch(needle).isFound(in: haystack.count) { haystack[$0] }
        }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// `LIKE`: `*` matches any run of characters, `?` one character.
    private static func like(_ text: ArraySlice<Unicode.Scalar>, _ pattern: ArraySlice<Unicode.Scalar>) -> Bool {
        var text = text
        var pattern = pattern
        var starText: ArraySlice<Unicode.Scalar>?
        var starPattern: ArraySlice<Unicode.Scalar>?
        while !text.isEmpty {
            if let next = pattern.first, next == "?" || next == text.first! {
                text = text.dropFirst()
                pattern = pattern.dropFirst()
            } else if pattern.first == "*" {
                starPattern = pattern.dropFirst()
                starText = text
                pattern = pattern.dropFirst()
            } else if let resume = starPattern, let saved = starText {
                starText = saved.dropFirst()
                text = starText!
                pattern = resume
            } else {
                return false
            }
        }
        return pattern.allSatisfy { $0 == "*" }
    }
}
