import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

enum CodableSize: Int, PersistableEnum, Codable { case small, medium, large }

final class CodablePet: Object, Codable {
    @Persisted var name: String
    @Persisted var age: Int
}

final class CodableOwner: Object, Codable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var nickname: String?
    @Persisted var score: Double
    @Persisted var active: Bool
    @Persisted var born: Date
    @Persisted var photo: Data
    @Persisted var uuid: UUID
    @Persisted var objectId: ObjectId
    @Persisted var price: Decimal
    @Persisted var size: CodableSize
    @Persisted var tags: List<String>
    @Persisted var pets: List<CodablePet>
    @Persisted var favourite: CodablePet?
    @Persisted var colours: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var mixed: AnyRealmValue
    @Persisted var visits: Int = 30
}

/// The shapes apps give their models: a class that is not final, renamed keys, a primary key
/// the input does not carry, a linked object, an optional enum.
class CodableRepository: Object, Codable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var fullName: String
    @Persisted var owner: CodableAccount?
    @Persisted var kind: CodableKind?

    enum CodingKeys: String, CodingKey {
        case fullName = "full_name"
        case owner, kind
    }
}

class CodableAccount: Object, Codable {
    @Persisted var login: String
    @Persisted(originProperty: "owner") var repositories: LinkingObjects<CodableRepository>

    enum CodingKeys: String, CodingKey {
        case login
    }
}

enum CodableKind: String, Codable, PersistableEnum { case library, app }

@Suite("Codable models")
struct CodableTests {
    static let json = Data("""
    {"id": 1, "name": "Ana", "nickname": null, "score": 2.5, "active": true, "born": 700000000,
     "photo": "AQID", "uuid": "2F0D6C3A-1B7E-4B8B-9E55-0C7B9E6E8F10", "objectId": "5f1b2c3d4e5f60718293a4b5",
     "price": 9.99, "size": 2, "tags": ["a", "b"], "pets": [{"name": "Rex", "age": 3}, {"name": "Bo"}],
     "favourite": {"name": "Fido", "age": 7}, "colours": ["red", "blue", "red"], "scores": {"x": 1, "y": 2},
     "mixed": "hi"}
    """.utf8)

    static func check(_ owner: CodableOwner) {
        #expect(owner.id == 1 && owner.name == "Ana" && owner.nickname == nil)
        #expect(owner.score == 2.5 && owner.active && owner.born == Date(timeIntervalSinceReferenceDate: 700_000_000))
        #expect(owner.photo == Data([1, 2, 3]) && owner.uuid.uuidString == "2F0D6C3A-1B7E-4B8B-9E55-0C7B9E6E8F10")
        #expect(owner.objectId.stringValue == "5f1b2c3d4e5f60718293a4b5")
        #expect(owner.price == Decimal(string: "9.99") && owner.size == .large)
        #expect(Array(owner.tags) == ["a", "b"])
        #expect(owner.pets.map(\.name) == ["Rex", "Bo"] && owner.pets.map(\.age) == [3, 0])
        #expect(owner.favourite?.name == "Fido" && owner.favourite?.age == 7)
        #expect(Set(owner.colours) == ["red", "blue"] && owner.colours.count == 2)
        #expect(owner.scores["x"] == 1 && owner.scores["y"] == 2 && owner.scores.count == 2)
        #expect(owner.mixed == .string("hi"))
        #expect(owner.visits == 0, "a missing key leaves its property at its type's default, as RealmSwift does")
    }

    @Test("JSON decodes into an unmanaged model, every property type, nested objects, missing keys at their default; it is added as it is")
    func decodeAndAdd() throws {
        let owner = try JSONDecoder().decode(CodableOwner.self, from: Self.json)
        #expect(owner.realm == nil)
        Self.check(owner)
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "codable-\(UUID())", objectTypes: [CodableOwner.self, CodablePet.self]))
        try realm.write { realm.add(owner) }
        let stored = try #require(realm.object(ofType: CodableOwner.self, forPrimaryKey: 1))
        Self.check(stored)
        #expect(realm.objects(CodablePet.self).count == 3)
    }

    @Test("an unmanaged model encodes and decodes back to the same values; a managed one throws, saying why")
    func encode() throws {
        let owner = try JSONDecoder().decode(CodableOwner.self, from: Self.json)
        let encoded = try JSONEncoder().encode(owner)
        Self.check(try JSONDecoder().decode(CodableOwner.self, from: encoded))
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "codable-\(UUID())", objectTypes: [CodableOwner.self, CodablePet.self]))
        try realm.write { realm.add(owner) }
        let error = #expect(throws: EncodingError.self) { try JSONEncoder().encode(owner) }
        guard case .invalidValue(_, let context)? = error else { Issue.record("not invalidValue: \(String(describing: error))"); return }
        #expect(context.debugDescription.contains("Only unmanaged objects"))
    }

    @Test("a wrong type or a malformed ObjectId fails the decoding with DecodingError")
    func decodingErrors() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CodablePet.self, from: Data(#"{"name": 5}"#.utf8)) }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CodableOwner.self, from: Data(#"{"id": 1, "objectId": "xyz"}"#.utf8))
        }
    }

    final class Prices: Object, Codable {
        @Persisted var price: Decimal
        @Persisted var discount: Decimal?
        @Persisted var history: List<Decimal>
    }

    @Test("a Decimal decodes from a number or from a string (\"1.5e2\"), as RealmSwift's Decimal128 does")
    func decimalsFromStrings() throws {
        let prices = try JSONDecoder().decode(Prices.self, from: Data(#"{"price": "1.5e2", "discount": "0.25", "history": [1.5, "2.5"]}"#.utf8))
        #expect(prices.price == 150 && prices.discount == Decimal(string: "0.25") && Array(prices.history) == [Decimal(string: "1.5")!, Decimal(string: "2.5")!])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Prices.self, from: Data(#"{"price": "lots"}"#.utf8)) }
    }

    @Test("renamed keys, a fresh primary key for what the input does not carry, a link, linking objects left out")
    func appShapes() throws {
        let json = Data(#"[{"full_name": "a/b", "owner": {"login": "ana"}, "kind": "app"}, {"full_name": "c/d"}]"#.utf8)
        let repositories = try JSONDecoder().decode([CodableRepository].self, from: json)
        #expect(repositories.map(\.fullName) == ["a/b", "c/d"] && repositories[0]._id != repositories[1]._id)
        #expect(repositories[0].kind == .app && repositories[1].kind == nil && repositories[1].owner == nil)
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "codable-\(UUID())", objectTypes: [CodableRepository.self, CodableAccount.self]))
        try realm.write { realm.add(repositories) }
        let ana = try #require(realm.objects(CodableAccount.self).first)
        #expect(ana.login == "ana" && ana.repositories.map(\.fullName) == ["a/b"])
    }

    @Test("mixed values decode as null, Bool, Int, Double or String, and encode what they hold")
    func mixedValues() throws {
        let values = try JSONDecoder().decode([AnyRealmValue].self, from: Data(#"[null, true, 3, 2.5, "s"]"#.utf8))
        #expect(values == [.none, .bool(true), .int(3), .double(2.5), .string("s")])
        #expect(String(decoding: try JSONEncoder().encode(values), as: UTF8.self) == #"[null,true,3,2.5,"s"]"#)
    }
}
