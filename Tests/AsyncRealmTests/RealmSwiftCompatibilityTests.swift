import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// RealmSwift's own tests, where AsyncRealm differed (issue 32).
@Suite("RealmSwift compatibility")
struct RealmSwiftCompatibilityTests {
    @Test("the write after cancelling the write that first used a class stores it (no 'there is no table')", arguments: RealmKind.allCases)
    func cancelFirstUse(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        realm.beginWrite()
        realm.add(ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("Rex")]))
        realm.cancelWrite()
        #expect(realm.objects(Person.self).isEmpty)
        try realm.write { realm.add(ObjectTests.makePerson(2, "Bo", dogs: [ObjectTests.makeDog("Fido")])) }
        try realm.write { realm.add(ObjectTests.makeDog("Solo")) }
        #expect(realm.objects(Person.self).map(\.name) == ["Bo"])
        #expect(realm.objects(Dog.self).map(\.name) == ["Fido", "Solo"])
        #expect(realm.objects(Person.self).first?.dogs.map(\.name) == ["Fido"])
        if kind == .file {
            let reopened = try Realm(configuration: kind.configuration(directory))
            #expect(reopened.schema.objectSchema.map(\.className).sorted() == ["Dog", "Person"])
            #expect(reopened.objects(Dog.self).count == 2)
        }
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("a Date read back is == to the Date stored: in a property, an optional one, a list, and as a query argument", arguments: RealmKind.allCases)
    func datesRoundTrip(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [DatedItem.self]))
        var random = SystemRandomNumberGenerator()
        var dates: [Date] = [
            Date(), Date(timeIntervalSince1970: 0.5), Date(timeIntervalSince1970: -1.25), .distantPast, .distantFuture,
            Date(timeIntervalSinceReferenceDate: 123456789.123456789), Date(timeIntervalSinceReferenceDate: 0),
            // Whole seconds, which a read converts without dividing the nanoseconds.
            Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSince1970: -86_400), Date(timeIntervalSince1970: 0),
        ]
        // Any date more than about 52 days from 2001: there a Double's spacing is over a
        // nanosecond, so the nanoseconds stored tell every Double apart.
        for _ in 0..<200 {
            dates.append(Date(timeIntervalSinceReferenceDate: Double.random(in: 1e7...3e9, using: &random)))
            dates.append(Date(timeIntervalSinceReferenceDate: -Double.random(in: 1e7...3e9, using: &random)))
        }
        try realm.write {
            for (index, date) in dates.enumerated() {
                let item = DatedItem()
                item.id = index
                item.when = date
                item.maybe = date
                item.all.append(date)
                realm.add(item)
            }
        }
        for (index, date) in dates.enumerated() {
            let item = try #require(realm.object(ofType: DatedItem.self, forPrimaryKey: index))
            #expect(item.when == date, "\(date.timeIntervalSinceReferenceDate) read back as \(item.when.timeIntervalSinceReferenceDate)")
            #expect(item.maybe == date)
            #expect(item.all.first == date)
            #expect(realm.objects(DatedItem.self).filter("when == %@", date).map(\.id).contains(index))
        }
        #expect(Array(realm.objects(DatedItem.self).map(\.when)) == dates)
        // Closer to 2001 a Double is finer than a nanosecond: it comes back to the nanosecond.
        for (offset, interval) in [12345.678901234567, 0.1, -0.1, 1e-9, -1e-9].enumerated() {
            let fine = Date(timeIntervalSinceReferenceDate: interval)
            try realm.write { realm.add(DatedItem(value: ["id": -1 - offset, "when": fine, "maybe": fine, "all": [fine]])) }
            let read = try #require(realm.object(ofType: DatedItem.self, forPrimaryKey: -1 - offset)).when
            #expect(abs(read.timeIntervalSince(fine)) < 1e-9, "\(interval)")
        }
    }
}

final class DatedItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var when: Date
    @Persisted var maybe: Date?
    @Persisted var all: List<Date>
}

extension RealmSwiftCompatibilityTests {
    @Test("value(forKey:) of an optional property holding nil is a plain nil, managed or not", arguments: RealmKind.allCases)
    func valueForKeyNil(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let unmanaged = ObjectTests.makePerson(1, "Ana")
        #expect(unmanaged.value(forKey: "age") == nil)
        #expect(unmanaged.value(forKey: "birthdate") == nil)
        try realm.write { realm.add(unmanaged) }
        let managed = try #require(realm.objects(Person.self).first)
        #expect(managed.value(forKey: "age") == nil)
        #expect(managed.value(forKey: "birthdate") == nil)
        try realm.write { managed.age = 30 }
        #expect(managed.value(forKey: "age") as? Int == 30)
        #expect(managed.value(forKey: "name") as? String == "Ana")
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("appending to an unmanaged list while iterating it ends: the loop sees the elements as they were")
    func appendWhileIterating() {
        let list = List<Int>()
        list.append(objectsIn: [1, 2, 3])
        var seen: [Int] = []
        for value in list {
            seen.append(value)
            list.append(value * 10)
        }
        #expect(seen == [1, 2, 3])
        #expect(Array(list) == [1, 2, 3, 10, 20, 30])
    }
}

final class EnumHolder: Object {
    @Persisted var size: Size
    @Persisted var colour: Colour
    @Persisted var maybeSize: Size?
    @Persisted var maybeColour: Colour?
}

extension RealmSwiftCompatibilityTests {
    @Test("where {} through an enum's rawValue: equality, comparisons, IN and string operations", arguments: RealmKind.allCases)
    func enumRawValueQueries(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [EnumHolder.self]))
        try realm.write {
            realm.add(EnumHolder(value: ["size": Size.small, "colour": Colour.red]))
            realm.add(EnumHolder(value: ["size": Size.large, "colour": Colour.green, "maybeSize": Size.medium, "maybeColour": Colour.green]))
        }
        let holders = realm.objects(EnumHolder.self)
        func sizes(_ query: (Query<EnumHolder>) -> Query<Bool>) -> [Size] { holders.where(query).map(\.size) }
        #expect(sizes { $0.size.rawValue == 2 } == [.large])
        #expect(sizes { $0.size.rawValue != 2 } == [.small])
        #expect(sizes { $0.size.rawValue > 0 } == [.large])
        #expect(sizes { $0.size.rawValue <= 0 } == [.small])
        #expect(sizes { $0.size.rawValue.in([0, 1]) } == [.small])
        #expect(sizes { $0.colour.rawValue.contains("ee") } == [.large])
        #expect(sizes { $0.colour.rawValue.starts(with: "R", options: .caseInsensitive) } == [.small])
        #expect(sizes { $0.colour.rawValue.ends(with: "d") } == [.small])
        #expect(sizes { $0.colour.rawValue.like("g*n") } == [.large])
        #expect(sizes { $0.colour.rawValue == "green" } == [.large])
        #expect(sizes { $0.maybeSize.rawValue == nil } == [.small])
        #expect(sizes { $0.maybeSize.rawValue == 1 } == [.large])
        #expect(sizes { $0.maybeSize.rawValue > 0 } == [.large])
        #expect(sizes { $0.maybeColour.rawValue == "green" } == [.large])
    }

    @Test("a member a query cannot follow (String.count) stops with a message instead of crashing")
    func memberOfValueStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "query-member-of-value"))
            _ = realm.objects(Dog.self).where { $0.name.count == 3 }
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("is not a property of an Object"), "\(printed)")
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("NSNull() stands for nil in create's and Object(value:)'s dictionaries and arrays, and clears in a partial update", arguments: RealmKind.allCases)
    func nsNullIsNil(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Person.self, Dog.self, EveryType.self]))
        let unmanaged = Person(value: ["id": 1, "name": "Ana", "age": NSNull(), "birthdate": NSNull(), "dogs": NSNull()])
        #expect(unmanaged.age == nil && unmanaged.birthdate == nil && unmanaged.dogs.isEmpty)
        let fromArray = Person(value: [2, "Bo", NSNull(), NSNull(), [["name": "Rex", "owner": NSNull()]]])
        #expect(fromArray.birthdate == nil && fromArray.dogs.first?.owner == nil)
        try realm.write {
            realm.add(unmanaged)
            realm.create(Person.self, value: ["id": 3, "name": "Cy", "age": 40, "birthdate": NSNull()])
            realm.create(EveryType.self, value: ["optionalStrings": ["a", NSNull(), "c"], "colour": NSNull(), "optionalInt": NSNull()])
        }
        try realm.write { realm.create(Person.self, value: ["id": 3, "age": NSNull()], update: .modified) }
        let cy = try #require(realm.object(ofType: Person.self, forPrimaryKey: 3))
        #expect(cy.age == nil && cy.name == "Cy")
        let every = try #require(realm.objects(EveryType.self).first)
        #expect(Array(every.optionalStrings) == ["a", nil, "c"])
        #expect(every.colour == nil && every.optionalInt == nil)
        try realm.write { cy.setValue(NSNull(), forKey: "birthdate") }
        #expect(cy.birthdate == nil)
        let dynamic = try #require(realm.dynamicObjects("Person").first)
        try realm.write { dynamic.setValue(NSNull(), forKey: "age") }
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.age == nil)
        // A required property is not optional: NSNull there fails the write, as nil does.
        #expect(throws: RealmError.self) {
            try realm.write { realm.create(Person.self, value: ["id": 4, "name": NSNull()]) }
        }
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 4) == nil)
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("changing the primary key of a managed object stops at once, as in RealmSwift; writing the same key is allowed")
    func primaryKeyChangeStops() async throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.inMemory.configuration(directory))
        let person = ObjectTests.makePerson(1, "Ana")
        try realm.write { realm.add(person) }
        try realm.write { person.id = 1 }
        #expect(person.id == 1)
        for path in ["property", "key-value", "dynamic"] {
            let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
                let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "primary-key-change"))
                let person = ObjectTests.makePerson(1, "Ana")
                try realm.write { realm.add(person) }
                realm.beginWrite()
                switch path {
                case "property": person.id = 2
                case "key-value": person.setValue(2, forKey: "id")
                default: realm.dynamicObjects("Person").first!.setValue(2, forKey: "id")
                }
                print("no stop")
            }
            let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(printed.contains("Primary key can't be changed after an object is inserted"), "\(path): \(printed)")
        }
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("beginWrite() does not throw: a write that cannot start drops its changes and commitWrite() throws why")
    func beginWriteDoesNotThrow() throws {
        let directory = TemporaryDirectory()
        let writable = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [Person.self, Dog.self]))
        let ana = ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("Rex")])
        try writable.write { writable.add(ana) }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), readOnly: true))
        let person = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        realm.beginWrite()
        #expect(realm.isInWriteTransaction)
        #expect(!realm.refresh(), "a write, even one that could not start, does not refresh")
        realm.add(ObjectTests.makePerson(2, "Bo"))
        realm.create(Dog.self, value: ["name": "Fido"])
        person.name = "Changed"
        person.dogs.append(ObjectTests.makeDog("Solo"))
        realm.delete(person.dogs[0])
        let error = #expect(throws: RealmError.self) { try realm.commitWrite() }
        #expect(error?.code == .readOnly)
        #expect(!realm.isInWriteTransaction)
        #expect(person.name == "Ana" && person.dogs.map(\.name) == ["Rex"])
        #expect(realm.objects(Person.self).count == 1 && realm.objects(Dog.self).count == 1)
        realm.beginWrite()
        realm.cancelWrite()
        #expect(!realm.isInWriteTransaction)
        // The file was not touched: a writable handle reads what it wrote.
        writable.refresh()
        #expect(writable.objects(Person.self).map(\.name) == ["Ana"])
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("value(forKey: \"self\") is the object, and on a collection its objects", arguments: RealmKind.allCases)
    func valueForKeySelf(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let person = ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("Rex"), ObjectTests.makeDog("Fido")])
        #expect(person.value(forKey: "self") as? Person === person)
        #expect((person.dogs.value(forKey: "self") as? [Dog])?.map(\.name) == ["Rex", "Fido"])
        try realm.write { realm.add(person) }
        let dogs = realm.objects(Dog.self)
        let selves = try #require(dogs.value(forKey: "self") as? [Dog])
        #expect(selves.count == 2 && zip(selves, dogs).allSatisfy { $0.isSameObject(as: $1) })
        #expect((person.dogs.value(forKey: "self") as? [Dog])?.count == 2)
        #expect((dogs.first?.owners.value(forKey: "self") as? [Person])?.map(\.name) == ["Ana"])
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("Realm.Error: RealmSwift's codes, catch Realm.Error.fileNotFound, and localizedDescription is the message")
    func realmErrorSpelling() throws {
        let directory = TemporaryDirectory()
        let missing = Realm.Configuration(fileURL: directory.file("missing.realm"), readOnly: true)
        do {
            _ = try Realm(configuration: missing)
            Issue.record("a read-only realm with no file opened")
        } catch Realm.Error.fileNotFound {
        } catch {
            Issue.record("caught \(error) instead of Realm.Error.fileNotFound")
        }
        let error = #expect(throws: Realm.Error.self) { try Realm(configuration: missing) }
        #expect(error?.code == .fileNotFound)
        #expect(error?.localizedDescription == error?.message)
        #expect((error as (any Error)?)?.localizedDescription.isEmpty == false)
        #expect(RealmError.Code.allCases.contains(.fail) && RealmError.Code.allCases.contains(.fileAccess))
        #expect(RealmError.Code.allCases.contains(.filePermissionDenied) && RealmError.Code.allCases.contains(.invalidDatabase))
        #expect(RealmError.Code.allCases.contains(.fileExists) && RealmError.Code.allCases.contains(.schemaMismatch))
    }
}

/// A model that names its primary key, indexes and ignored properties in RealmSwift's older
/// class methods.
final class OldStyleModel: Object {
    @Persisted var id: Int
    @Persisted var name: String
    @Persisted var cache: String
    override class func primaryKey() -> String? { "id" }
    override class func indexedProperties() -> [String] { ["name"] }
    override class func ignoredProperties() -> [String] { ["cache"] }
}

final class MisnamedPrimaryKey: Object {
    @Persisted var id: Int
    override class func primaryKey() -> String? { "identifier" }
}

extension RealmSwiftCompatibilityTests {
    @Test("className(), objectSchema, and primaryKey(), indexedProperties(), ignoredProperties() of models declared the old way", arguments: RealmKind.allCases)
    func oldStyleModels(kind: RealmKind) throws {
        #expect(Person.className() == "Person")
        #expect(Person.primaryKey() == nil && Person.indexedProperties().isEmpty && Person.ignoredProperties().isEmpty)
        #expect(Person().objectSchema.primaryKeyProperty?.name == "id")
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [OldStyleModel.self]))
        let schema = try #require(realm.schema["OldStyleModel"])
        #expect(schema.primaryKeyProperty?.name == "id")
        #expect(schema["name"]?.isIndexed == true)
        #expect(schema["cache"] == nil, "ignored")
        let object = OldStyleModel(value: ["id": 1, "name": "one"])
        object.cache = "kept in the accessor"
        try realm.write { realm.add(object) }
        #expect(object.objectSchema.className == "OldStyleModel")
        #expect(object.cache == "kept in the accessor")
        object.cache = "changed outside a write"
        #expect(object.cache == "changed outside a write")
        let read = try #require(realm.object(ofType: OldStyleModel.self, forPrimaryKey: 1))
        #expect(read.name == "one" && read.cache == "")
        #expect(throws: RealmError.self) {
            try realm.write { realm.add(OldStyleModel(value: ["id": 1, "name": "again"])) }
        }
        let error = #expect(throws: RealmError.self) {
            try Realm(configuration: kind.configuration(directory, objectTypes: [MisnamedPrimaryKey.self]))
        }
        #expect(error?.code == .invalidSchema && error?.message.contains("'identifier'") == true, "\(error?.message ?? "")")
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("SortDescriptor.reversed() and string literals, ObjectId literals, and Realm: Equatable")
    func smallSpellings() async throws {
        let descriptor = SortDescriptor(keyPath: "age", ascending: true)
        #expect(descriptor.reversed() == SortDescriptor(keyPath: "age", ascending: false))
        let literal: AsyncRealm.SortDescriptor = "name"
        #expect(literal == SortDescriptor(keyPath: "name"))
        let id: ObjectId = "6058f12682b2fbb1f334ef1d"
        #expect(id == ObjectId("6058f12682b2fbb1f334ef1d"))
        #expect(id.stringValue == "6058f12682b2fbb1f334ef1d")
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ObjectId("not an id")
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("ObjectId(string:)"))

        let directory = TemporaryDirectory()
        let configuration = RealmKind.file.configuration(directory)
        let first = try Realm(configuration: configuration)
        let second = try Realm(configuration: configuration)
        #expect(first == second, "two handles on one file and thread are equal, as RealmSwift's cached ones are")
        let otherDirectory = TemporaryDirectory()
        #expect(first != (try Realm(configuration: RealmKind.file.configuration(otherDirectory))))
        let frozen = first.freeze()
        #expect(frozen != first && frozen == second.freeze())
        try first.write { first.add(ObjectTests.makeDog("Rex")) }
        #expect(frozen != first.freeze(), "frozen at another version")
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("Swift key-path spellings: sorted(by:ascending:), min/max/sum/average(of:), distinct(by:), index(of:)", arguments: RealmKind.allCases)
    func keyPathSpellings(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let ana = ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("Rex", age: 3), ObjectTests.makeDog("Fido", age: 7), ObjectTests.makeDog("Rex", age: 5)])
        ana.age = 30
        try realm.write {
            realm.add(ana)
            realm.add(ObjectTests.makePerson(2, "Bo"))
        }
        let dogs = realm.objects(Dog.self)
        #expect(dogs.sorted(by: \.age).map(\.age) == [3, 5, 7])
        #expect(dogs.sorted(by: \.age, ascending: false).map(\.age) == [7, 5, 3])
        #expect(dogs.min(of: \.age) == 3 && dogs.max(of: \.age) == 7)
        #expect(dogs.sum(of: \.age) == 15 && dogs.average(of: \.age) == 5)
        #expect(dogs.distinct(by: [\Dog.name]).map(\.name) == ["Rex", "Fido"])
        let people = realm.objects(Person.self)
        #expect(people.sorted(by: \.name, ascending: false).map(\.name) == ["Bo", "Ana"])
        #expect(people.max(of: \.age) == .some(30))
        #expect(people.sum(of: \.age) == .some(30))
        let managed = try #require(people.first)
        #expect(managed.dogs.sorted(by: \.age).map(\.name) == ["Rex", "Rex", "Fido"])
        #expect(managed.dogs.max(of: \.age) == 7)
        #expect(AnyRealmCollection(managed.dogs).min(of: \.age) == 3)
        #expect(managed.dogs.index(of: dogs.sorted(by: \.age).last!) == 1)
        let ints = List<Int>()
        ints.append(objectsIn: [4, 5, 6])
        #expect(ints.index(of: 5) == 1 && ints.index(of: 9) == nil)
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("List is a MutableCollection and a RangeReplaceableCollection: replacing a range with one of another length", arguments: RealmKind.allCases)
    func listRangeReplaceable(kind: RealmKind) throws {
        let unmanaged = List<Int>([1, 2, 3, 4])
        unmanaged.replaceSubrange(1..<3, with: [20])
        #expect(Array(unmanaged) == [1, 20, 4])
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [EveryType.self, Dog.self, Person.self]))
        let every = EveryType()
        every.ints.append(objectsIn: [1, 2, 3, 4])
        try realm.write { realm.add(every) }
        let ints = every.ints
        try realm.write {
            ints.replaceSubrange(1..<3, with: [20, 30, 40])
            ints.insert(contentsOf: [0], at: 0)
            ints.removeSubrange(4..<5)
            ints[0] = -1
            ints.swapAt(0, 1)
            ints.removeLast()
        }
        #expect(Array(ints) == [1, -1, 20, 30])
        try realm.write { ints.replaceSubrange(0..<4, with: [Int]()) }
        #expect(ints.isEmpty)
        let person = ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("A"), ObjectTests.makeDog("B")])
        try realm.write { realm.add(person) }
        try realm.write { person.dogs.replaceSubrange(0..<1, with: [ObjectTests.makeDog("C"), ObjectTests.makeDog("D")]) }
        #expect(person.dogs.map(\.name) == ["C", "D", "B"])
        #expect(realm.objects(Dog.self).count == 4, "replacing in a list unlinks, and does not delete, the object")
    }
}

extension RealmSwiftCompatibilityTests {
    /// Generic code over `RealmCollection` freezes and thaws.
    private static func frozenCount<C: RealmCollection>(_ collection: C) -> (Int, Bool, Bool) {
        let frozen = collection.freeze()
        return (frozen.count, frozen.isFrozen, frozen.thaw()?.isFrozen ?? true)
    }

    @Test("RealmCollection carries freeze(), thaw() and isFrozen; thawing an unmanaged object stops")
    func collectionFreezeThaw() async throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.file.configuration(directory))
        let person = ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("Rex")])
        try realm.write { realm.add(person) }
        #expect(Self.frozenCount(realm.objects(Dog.self)) == (1, true, false))
        #expect(Self.frozenCount(person.dogs) == (1, true, false))
        #expect(Self.frozenCount(realm.objects(Dog.self).first!.owners) == (1, true, false))
        #expect(Self.frozenCount(AnyRealmCollection(person.dogs)) == (1, true, false))
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog().thaw()
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("cannot be thawed"))
    }

    @Test("ThreadSafeReference.isInvalidated once resolved; @ThreadSafe reads the value wherever it is read")
    func threadSafeSpellings() async throws {
        let directory = TemporaryDirectory()
        let configuration = RealmKind.file.configuration(directory)
        let realm = try await Realm.open(configuration: configuration)  // the test's task: it resumes on any thread
        let dog = ObjectTests.makeDog("Rex")
        try realm.write { realm.add(dog) }
        let reference = ThreadSafeReference(to: dog)
        #expect(!reference.isInvalidated)
        #expect(realm.resolve(reference)?.name == "Rex")
        #expect(reference.isInvalidated)

        @ThreadSafe var held = dog
        @ThreadSafe var dogs = realm.objects(Dog.self)
        let read = await Task.detached { [_held, _dogs] in
            (_held.wrappedValue?.name, _dogs.wrappedValue?.count)
        }.value
        #expect(read.0 == "Rex" && read.1 == 1)
        try realm.write { realm.delete(dog) }
        let afterDelete = await Task.detached { [_held] in _held.wrappedValue == nil }.value
        #expect(afterDelete)
        held = nil
        #expect(held == nil)
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("create copies the objects its value holds: unmanaged ones stay unmanaged, another realm's are copied, this realm's are linked", arguments: RealmKind.allCases)
    func createCopiesNestedObjects(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let rex = ObjectTests.makeDog("Rex")
        let ana = ObjectTests.makePerson(1, "Ana", dogs: [rex, rex])
        rex.owner = ana  // a cycle back to the value itself
        let stored = try realm.write { realm.create(Person.self, value: ana) }
        #expect(ana.realm == nil && rex.realm == nil, "the originals stay unmanaged")
        #expect(stored.realm != nil && stored.dogs.count == 2)
        #expect(realm.objects(Dog.self).count == 1, "one copy of an object reached twice")
        #expect(stored.dogs[0].owner?.isSameObject(as: stored) == true, "the cycle leads to the created object")
        let fido = ObjectTests.makeDog("Fido")
        try realm.write { realm.create(Person.self, value: ["id": 2, "name": "Bo", "dogs": [fido, stored.dogs[0]]]) }
        #expect(fido.realm == nil)
        #expect(realm.objects(Dog.self).count == 2, "this realm's dog is linked, not copied")
        let solo = ObjectTests.makeDog("Solo")
        try realm.write { realm.create(Person.self, value: ["id": 2, "dogs": [solo]], update: .modified) }
        #expect(solo.realm == nil && realm.object(ofType: Person.self, forPrimaryKey: 2)?.dogs.map(\.name) == ["Solo"])

        let otherDirectory = TemporaryDirectory()
        let other = try Realm(configuration: kind.configuration(otherDirectory))
        let copied = try other.write { other.create(Person.self, value: stored) }
        #expect(copied.realm === other && copied.dogs.map(\.name) == ["Rex", "Rex"])
        #expect(other.objects(Dog.self).count == 1 && realm.objects(Dog.self).count == 3)
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("LinkingObjects are live: an owner added, unlinked or deleted shows at once, and frozen ones thaw", arguments: RealmKind.allCases)
    func liveLinkingObjects(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let rex = ObjectTests.makeDog("Rex")
        try realm.write { realm.add(ObjectTests.makePerson(1, "Ana", dogs: [rex])) }
        let owners = rex.owners
        #expect(owners.map(\.name) == ["Ana"])
        try realm.write { realm.add(ObjectTests.makePerson(2, "Bo", dogs: [rex])) }
        #expect(owners.map(\.name) == ["Ana", "Bo"], "a new owner appears in the value read before")
        try realm.write { realm.delete(realm.object(ofType: Person.self, forPrimaryKey: 1)!) }
        #expect(owners.map(\.name) == ["Bo"], "a deleted owner disappears")
        let frozen = owners.freeze()
        try realm.write { realm.object(ofType: Person.self, forPrimaryKey: 2)!.dogs.removeAll() }
        #expect(owners.isEmpty && frozen.map(\.name) == ["Bo"])
        #expect(frozen.thaw()?.isEmpty == true)
        #expect(Dog().owners.isEmpty && Dog().owners.realm == nil)
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("an unmanaged List answers index(matching:) and the aggregates as the same list managed does")
    func unmanagedListQueries() throws {
        let dogs = List<Dog>()
        let owner = ObjectTests.makePerson(7, "Ana")
        owner.age = 40
        for (index, name) in ["Rex", "fido", "Solo", "Fido", "Max"].enumerated() {
            let dog = ObjectTests.makeDog(name, age: [3, 9, 1, 4, 9][index])
            if index.isMultiple(of: 2) { dog.owner = owner }
            dogs.append(dog)
        }
        let predicates: [(String, [Any])] = [
            ("age > %@", [3]), ("name ==[c] %@", ["FIDO"]), ("name BEGINSWITH %@", ["S"]), ("owner.name == %@", ["Ana"]),
            ("owner == nil", []), ("owner.age >= 40 AND age < 2", []), ("name LIKE '?a?'", []), ("age IN {4, 9}", []),
            ("owner.dogs.@count == 0", []), ("NOT (age BETWEEN {2, 5})", []), ("name == 'nobody'", []),
        ]
        let blocks: [(Query<Dog>) -> Query<Bool>] = [{ $0.age > 3 }, { $0.owner.name == "Ana" && $0.age < 2 }, { $0.name.contains("i") }]
        var unmanagedAnswers: [Int?] = try predicates.map { try dogs.index(matching: RealmPredicate($0.0, arguments: $0.1)) }
        unmanagedAnswers += blocks.map { dogs.index(matching: $0) }
        #expect(dogs.index(matching: "age == %@", 4) == 3)
        let unmanagedAggregates: [Int?] = [dogs.min(ofProperty: "age"), dogs.max(ofProperty: "age"), dogs.sum(ofProperty: "age")]
        #expect(unmanagedAggregates == [1, 9, 26])
        #expect(dogs.average(ofProperty: "age") == 5.2)
        #expect(dogs.max(ofProperty: "name") == "fido")
        #expect(dogs.realm == nil && dogs.allSatisfy { $0.realm == nil }, "querying leaves the objects unmanaged")

        // The same list, managed, gives the same answers.
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: RealmKind.inMemory.configuration(directory))
        let holder = ObjectTests.makePerson(1, "Holder")
        try realm.write {
            holder.dogs.append(objectsIn: dogs)
            realm.add(holder)
        }
        var managedAnswers: [Int?] = try predicates.map { try holder.dogs.index(matching: RealmPredicate($0.0, arguments: $0.1)) }
        managedAnswers += blocks.map { holder.dogs.index(matching: $0) }
        #expect(unmanagedAnswers == managedAnswers)
        #expect(unmanagedAnswers.compactMap { $0 }.count > 5, "most predicates match something")
        let managedAggregates: [Int?] = [holder.dogs.min(ofProperty: "age"), holder.dogs.max(ofProperty: "age"), holder.dogs.sum(ofProperty: "age")]
        #expect(managedAggregates == unmanagedAggregates)
    }
}

final class GeneratedKeys: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var token: UUID
    @Persisted var name: String
}

extension RealmSwiftCompatibilityTests {
    @Test("an ObjectId or UUID property without an initial value gets a new one per object, so an ObjectId primary key needs no value", arguments: RealmKind.allCases)
    func generatedKeys(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [GeneratedKeys.self]))
        try realm.write {
            for name in ["a", "b", "c"] { realm.add(GeneratedKeys(value: ["name": name])) }
            realm.create(GeneratedKeys.self, value: ["name": "d"])
        }
        let stored = realm.objects(GeneratedKeys.self)
        #expect(Set(stored.map(\._id)).count == 4 && !stored.contains { $0._id == ObjectId() })
        #expect(Set(stored.map(\.token)).count == 4)
        let first = try #require(stored.first)
        #expect(realm.object(ofType: GeneratedKeys.self, forPrimaryKey: first._id)?.name == first.name)
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("dynamicObject(ofType:forPrimaryKey:) finds an object by class name and key, without its model", arguments: RealmKind.allCases)
    func dynamicObjectForPrimaryKey(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory, objectTypes: [Person.self, Dog.self]))
        try realm.write {
            realm.add(ObjectTests.makePerson(1, "Ana", dogs: [ObjectTests.makeDog("Rex")]))
            realm.add(ObjectTests.makePerson(2, "Bo", dogs: []))
        }
        let ana = try #require(realm.dynamicObject(ofType: "Person", forPrimaryKey: 1))
        #expect(ana["name"] as? String == "Ana")
        #expect((ana["dogs"] as? List<DynamicObject>)?.map { $0["name"] as? String } == ["Rex"])
        #expect(realm.dynamicObject(ofType: "Person", forPrimaryKey: 2)?["name"] as? String == "Bo")
        #expect(realm.dynamicObject(ofType: "Person", forPrimaryKey: 3) == nil)
        // It is live, as a typed lookup's object is.
        try realm.write { realm.object(ofType: Person.self, forPrimaryKey: 1)?.name = "Ann" }
        #expect(ana["name"] as? String == "Ann")
        try realm.write { realm.delete(realm.objects(Person.self).filter("id == 1")) }
        #expect(ana.isInvalidated)
        #expect(realm.dynamicObject(ofType: "Person", forPrimaryKey: 1) == nil)
    }

    @Test("dynamicObject(ofType:forPrimaryKey:) with a key of the wrong type, or on a class without a key, stops saying why")
    func dynamicObjectForPrimaryKeyMisuse() async throws {
        let wrongType = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "dynamic-key-type", objectTypes: [Person.self, Dog.self]))
            _ = realm.dynamicObject(ofType: "Person", forPrimaryKey: "one")
        }
        #expect(String(decoding: wrongType.standardErrorContent, as: UTF8.self).contains("String cannot be the primary key of 'Person', which is Int"))
        let noKey = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "dynamic-no-key", objectTypes: [Person.self, Dog.self]))
            _ = realm.dynamicObject(ofType: "Dog", forPrimaryKey: 1)
        }
        #expect(String(decoding: noKey.standardErrorContent, as: UTF8.self).contains("'Dog' has no primary key"))
    }
}

extension RealmSwiftCompatibilityTests {
    @Test("sum and average asked for as Decimal128 of Int and Double properties, as RealmSwift's Decimal128 takes any number: exact for integers", arguments: RealmKind.allCases)
    func decimalAggregatesOfOtherNumbers(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let values = [1, 1, 2]
        try realm.write {
            for value in values { realm.create(Measured.self, value: ["value": value, "level": Double(value) / 4, "maybe": value]) }
        }
        let all = realm.objects(Measured.self)
        let unmanaged = List<Measured>()
        unmanaged.append(objectsIn: values.map { Measured(value: ["value": $0, "level": Double($0) / 4, "maybe": $0]) })
        for (name, sum, average) in [("all", all.sum(ofProperty: "value") as Decimal128, all.average(ofProperty: "value") as Decimal128?),
                                     ("unmanaged", unmanaged.sum(ofProperty: "value") as Decimal128, unmanaged.average(ofProperty: "value") as Decimal128?)] {
            #expect(sum == 4, "\(name)")
            // 4/3 in decimals, not the Double 1.333… converted.
            #expect(average == Decimal128(4) / Decimal128(3), "\(name)")
        }
        #expect(all.sum(ofProperty: "level") as Decimal128 == 1)
        #expect(all.average(ofProperty: "level") as Decimal128? == Decimal128(Double(1) / 3))
        #expect(all.sum(ofProperty: "maybe") as Decimal128? == 4)
        #expect(all.filter("value > 5").average(ofProperty: "value") as Decimal128? == nil)
    }
}
