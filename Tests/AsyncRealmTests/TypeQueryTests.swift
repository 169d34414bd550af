import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

final class KindHolder: Object {
    @Persisted var name: String
    @Persisted var value: AnyRealmValue
    @Persisted var values: List<AnyRealmValue>
    @Persisted var age: Int
    @Persisted var nick: String?
    @Persisted var link: KindHolder?
}

/// `@type` in a query: the kind of an `AnyRealmValue`'s value, named as Realm's query language
/// names it, and the type of a property of one type.
@Suite("@type in queries")
struct TypeQueryTests {
    /// One holder per kind of value, named after it.
    static func realm(_ kind: RealmKind, _ directory: TemporaryDirectory) throws -> Realm {
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [KindHolder.self]))
        try realm.write {
            let target = realm.create(KindHolder.self, value: ["name": "target"])
            let values: [(String, AnyRealmValue)] = [
                ("none", .none), ("int", .int(1)), ("bool", .bool(true)), ("string", .string("s")),
                ("data", .data(Data([1]))), ("date", .date(Date(timeIntervalSince1970: 5))), ("float", .float(1.5)),
                ("double", .double(2.5)), ("decimal", .decimal128(Decimal(string: "3.5")!)), ("objectId", .objectId(ObjectId.generate())),
                ("uuid", .uuid(UUID())), ("object", .object(target)),
            ]
            for (name, value) in values {
                realm.create(KindHolder.self, value: ["name": name, "value": value, "values": [value, AnyRealmValue.int(7)]])
            }
        }
        return realm
    }

    static func names(_ results: Results<KindHolder>) -> Set<String> { Set(results.map(\.name)) }

    @Test("an AnyRealmValue's kind: each name, numeric, case, !=, IN, and through a list", arguments: RealmKind.allCases)
    func mixedKinds(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(kind, directory)
        let holders = realm.objects(KindHolder.self).filter("name != 'target'")
        let expected: [String: Set<String>] = [
            "null": ["none"], "int": ["int"], "integer": ["int"], "bool": ["bool"], "string": ["string"],
            "binary": ["data"], "data": ["data"], "date": ["date"], "timestamp": ["date"], "float": ["float"],
            "double": ["double"], "decimal": ["decimal"], "decimal128": ["decimal"], "objectId": ["objectId"],
            "uuid": ["uuid"], "object": ["object"], "link": ["object"], "numeric": ["int", "float", "double", "decimal"],
        ]
        for (type, names) in expected {
            #expect(Self.names(holders.filter("value.@type == %@", type)) == names, "\(type)")
            #expect(Self.names(holders.filter("value.@type != '\(type.uppercased())'")) == Self.names(holders).subtracting(names), "\(type)")
        }
        #expect(Self.names(holders.filter("value.@type IN {'bool', 'uuid', 'null'}")) == ["bool", "uuid", "none"])
        // Through a list: ANY by default, ALL and NONE.
        #expect(Self.names(holders.filter("values.@type == 'string'")) == ["string"])
        #expect(Self.names(holders.filter("ALL values.@type == 'int'")) == ["int"])
        #expect(Self.names(holders.filter("ALL values.@type == 'numeric'")) == ["int", "float", "double", "decimal"])
        #expect(Self.names(holders.filter("NONE values.@type == 'numeric'")) == [])
        // Through a link: nil for a holder without one.
        #expect(Self.names(holders.filter("link.value.@type == 'null'")) == Self.names(holders))
    }

    @Test("a property of one type has its type's kind, whatever it holds")
    func typedProperties() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(.file, directory)
        let all = realm.objects(KindHolder.self)
        #expect(all.filter("age.@type == 'int'").count == all.count)
        #expect(all.filter("age.@type == 'numeric'").count == all.count)
        #expect(all.filter("nick.@type == 'string'").count == all.count)
        #expect(all.filter("nick.@type == 'null'").count == 0)
        #expect(all.filter("link.@type == 'object'").count == all.count)
        #expect(all.filter("name.@type != 'string'").count == 0)
    }

    @Test("an unknown name, an order comparison or a value that is not a name is an invalid query")
    func invalid() throws {
        let directory = TemporaryDirectory()
        let realm = try Self.realm(.file, directory)
        let all = realm.objects(KindHolder.self)
        for (query, message) in [
            ("value.@type == 'number'", "one of: null, int, integer"),
            ("value.@type > 'int'", "==, != or IN"),
            ("value.@type == 3", "the name of a type"),
            ("value.@type == name", "the name of a type"),
            ("values.@type.name == 'int'", "@type ends a key path"),
        ] {
            do {
                _ = try all.filter(query, values: .none)
                Issue.record("\(query) was accepted")
            } catch {
                #expect("\(error)".contains(message), "\(query): \(error)")
            }
        }
    }
}
