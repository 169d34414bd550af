import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

@Suite("Managed objects, add, query by key, delete, cancel")
struct ObjectTests {
    static func makePerson(_ id: Int, _ name: String, dogs: [Dog] = []) -> Person {
        let person = Person()
        person.id = id
        person.name = name
        person.dogs.append(objectsIn: dogs)
        return person
    }

    static func makeDog(_ name: String, age: Int = 1) -> Dog {
        let dog = Dog()
        dog.name = name
        dog.age = age
        return dog
    }

    /// A realm of `kind` holding `count` dogs, the name and age of each from its index.
    static func realmOfDogs(_ kind: RealmKind, in directory: TemporaryDirectory, count: Int, _ dog: (Int) -> (String, Int)) throws -> Realm {
        let realm = try Realm(configuration: kind.configuration(directory))
        try realm.write {
            for index in 0..<count {
                let (name, age) = dog(index)
                realm.add(makeDog(name, age: age))
            }
        }
        return realm
    }

    @Test("added objects, and the objects they link to, are stored, live, and survive reopening", arguments: RealmKind.allCases)
    func addAndRead(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        var realm: Realm? = try Realm(configuration: kind.configuration(directory))
        let rex = Self.makeDog("Rex", age: 3)
        let fido = Self.makeDog("Fido")
        let jim = Self.makePerson(1, "Jim", dogs: [rex, fido, rex])
        rex.owner = jim
        try realm!.write { realm!.add(jim) }
        #expect(jim.realm === realm && rex.realm === realm && fido.realm === realm, "linked objects are added too")
        #expect(realm!.objects(Person.self).count == 1)
        #expect(realm!.objects(Dog.self).map(\.name) == ["Rex", "Fido"])
        let stored = try #require(realm!.objects(Person.self).first)
        #expect(stored.name == "Jim" && stored.birthdate == nil && stored.age == nil)
        #expect(stored.dogs.map(\.name) == ["Rex", "Fido", "Rex"])
        #expect(stored.isSameObject(as: jim) && !stored.isSameObject(as: rex))
        #expect(realm!.objects(Dog.self)[0].owner?.name == "Jim")
        // Live: another accessor of the same object sees a write at once.
        try realm!.write { jim.name = "James" }
        #expect(stored.name == "James")
        #expect(realm!.objects(Dog.self)[0].owners.map(\.name) == ["James", "James"], "Rex is listed twice in James's dogs")

        if kind == .file {
            realm = nil
            let reopened = try Realm(configuration: kind.configuration(directory))
            let person = try #require(reopened.object(ofType: Person.self, forPrimaryKey: 1))
            #expect(person.name == "James" && person.dogs.count == 3)
        }
    }

    @Test("every property type round-trips through close and reopen")
    func everyTypeRoundTrip() throws {
        let directory = TemporaryDirectory()
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let uuid = UUID()
        let objectId = ObjectId.generate()
        do {
            let realm = try Realm(configuration: RealmKind.file.configuration(directory))
            let object = EveryType()
            object.bool = true
            object.int = -42
            object.int8 = -8
            object.int16 = 1600
            object.int32 = -320_000
            object.int64 = .max
            object.float = 1.5
            object.double = -2.25e300
            object.string = "héllo 🐶"
            object.data = Data([0, 1, 255])
            object.date = date
            object.uuid = uuid
            object.decimal = Decimal(string: "12345678901234567890.123456789")!
            object.objectId = objectId
            object.size = .large
            object.colour = .green
            object.optionalInt = 7
            object.optionalString = nil
            object.ints.append(objectsIn: [3, 1, 3])
            object.optionalStrings.append(objectsIn: ["a", nil])
            object.dogs.append(Self.makeDog("Rex"))
            try realm.write { realm.add(object) }
        }
        let realm = try Realm(configuration: RealmKind.file.configuration(directory))
        let object = try #require(realm.objects(EveryType.self).first)
        #expect(object.bool && object.int == -42 && object.int8 == -8 && object.int16 == 1600 && object.int32 == -320_000)
        #expect(object.int64 == .max && object.float == 1.5 && object.double == -2.25e300)
        #expect(object.string == "héllo 🐶" && object.data == Data([0, 1, 255]))
        #expect(abs(object.date.timeIntervalSince(date)) < 1e-6)
        #expect(object.uuid == uuid && object.objectId == objectId)
        #expect(object.decimal == Decimal(string: "12345678901234567890.123456789")!)
        #expect(object.size == .large && object.colour == .green && object.optionalInt == 7 && object.optionalString == nil)
        #expect(Array(object.ints) == [3, 1, 3] && Array(object.optionalStrings) == ["a", nil])
        #expect(object.dogs.first?.name == "Rex")
    }

    @Test("an added object's values read through the specialised field reads equal the general ones")
    func addedValuesOfEveryType() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "storage-fields"))
        let object = EveryType()
        object.bool = true
        object.int = -42
        object.double = -2.25e300
        object.string = "a string longer than fifteen bytes, 🐶"
        object.date = Date(timeIntervalSince1970: -1_700_000_000.987654)
        object.optionalInt = 7
        object.colour = .green
        let info = try realm.classInfo(for: EveryType.self)
        let fields = info.storageFields(of: object)
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        var specialised = 0
        for (column, field) in fields.enumerated() {
            let general = field.type.storageValue(at: base + field.offset, realm: realm)
            #expect(field.storageValue(in: base, realm: realm) == general, "\(info.schema.storedProperties[column].name)")
            if ["bool", "int", "double", "string", "date"].contains(info.schema.storedProperties[column].name) {
                #expect(general != .null)
                specialised += 1
            }
        }
        #expect(specialised == 5)
        try realm.write { realm.add(object) }
        let stored = try #require(realm.objects(EveryType.self).first)
        #expect(stored.bool && stored.int == -42 && stored.double == -2.25e300 && stored.string == object.string)
        #expect(abs(stored.date.timeIntervalSince(object.date)) < 1e-6 && stored.optionalInt == 7 && stored.colour == .green)
    }

    @Test("a duplicate primary key fails the write and stores nothing of it; update policies update in place", arguments: RealmKind.allCases)
    func primaryKeys(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        try realm.write { realm.add(Self.makePerson(1, "Ana")) }
        let error = #expect(throws: RealmError.self) {
            try realm.write {
                realm.add(Self.makePerson(2, "Bo", dogs: [Self.makeDog("Spot")]))
                realm.add(Self.makePerson(1, "Cy"))
            }
        }
        #expect(error?.code == .duplicatePrimaryKey)
        #expect(realm.objects(Person.self).map(\.name) == ["Ana"])
        #expect(realm.objects(Dog.self).isEmpty)
        try realm.write {
            realm.add(Self.makePerson(1, "Ana Maria"), update: .modified)
            realm.add(Self.makePerson(3, "Di"), update: .all)
        }
        #expect(realm.objects(Person.self).map(\.name) == ["Ana Maria", "Di"])
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 3)?.name == "Di")
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 4) == nil)
        // Changing a primary key stops (RealmSwiftCompatibilityTests.primaryKeyChangeStops).
        // A cycle back to an object being updated by primary key ends at that object.
        let again = Self.makePerson(3, "Di again")
        let pet = Self.makeDog("Pet")
        pet.owner = again
        again.dogs.append(pet)
        try realm.write { realm.add(again, update: .modified) }
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 3)?.dogs.first?.owner?.name == "Di again")
        #expect(realm.objects(Person.self).count == 2)
    }

    @Test("objects are equal when they are accessors of the same stored object", arguments: RealmKind.allCases)
    func equality(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let jim = Self.makePerson(1, "Jim"), ann = Self.makePerson(2, "Ann")
        #expect(jim == jim && jim != Self.makePerson(1, "Jim"), "unmanaged objects are equal only to themselves")
        try realm.write { realm.add([jim, ann]) }
        let again = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(again == jim && again !== jim && again != ann)
        #expect(Set([jim, again, ann]).count == 2)
    }

    @Test("cancelWrite restores deleted objects, invalidates objects added in the transaction and rolls values back", arguments: RealmKind.allCases)
    func cancelWrite(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        try realm.write { realm.add(Self.makeDog("Old", age: 5)) }
        let oldObject = try #require(realm.objects(Dog.self).first)
        let newObject = Self.makeDog("New")
        realm.beginWrite()
        realm.add(newObject)
        oldObject.age = 6
        realm.delete(oldObject)
        realm.cancelWrite()
        #expect(newObject.isInvalidated)
        #expect(oldObject.isInvalidated, "as the reference says, the old accessor stays invalidated")
        let again = try #require(realm.objects(Dog.self).first, "re-running the query finds the restored object")
        #expect(again.name == "Old" && again.age == 5)
        #expect(realm.objects(Dog.self).count == 1)

        // Objects added by a committed write stay valid when a later write is cancelled; an
        // object added through a link, and one added by a write whose block throws, do not.
        let kept = Self.makeDog("Kept")
        try realm.write { realm.add(kept) }
        let owner = Self.makePerson(7, "Ann", dogs: [])
        let linked = Self.makeDog("Linked")
        owner.dogs.append(linked)
        realm.beginWrite()
        realm.add(owner)
        realm.cancelWrite()
        #expect(!kept.isInvalidated && kept.name == "Kept")
        #expect(owner.isInvalidated && linked.isInvalidated)
        struct Stop: Error {}
        let thrown = Self.makeDog("Thrown")
        #expect(throws: Stop.self) { try realm.write { realm.add(thrown); throw Stop() } }
        #expect(thrown.isInvalidated && !kept.isInvalidated)
        #expect(realm.objects(Dog.self).map(\.name).sorted() == ["Kept", "Old"])
    }

    @Test("the realm does not keep the objects a write adds: one the caller lets go of is freed at once", arguments: RealmKind.allCases)
    func addedObjectsNotKept(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        weak var added: Dog?
        try realm.write {
            do {
                let dog = Self.makeDog("Rex")
                realm.add(dog)
                added = dog
            }
            #expect(added == nil, "the realm kept an added object until the commit")
        }
        #expect(realm.objects(Dog.self).first?.name == "Rex")
    }

    @Test("deleting an object removes it from every list and sets every link to it to nil", arguments: RealmKind.allCases)
    func deleteUnlinks(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let rex = Self.makeDog("Rex")
        let fido = Self.makeDog("Fido")
        let jim = Self.makePerson(1, "Jim", dogs: [rex, fido, rex])
        rex.owner = jim
        fido.owner = jim
        try realm.write { realm.add(jim) }
        try realm.write { realm.delete(rex) }
        #expect(rex.isInvalidated)
        #expect(jim.dogs.map(\.name) == ["Fido"])
        try realm.write { realm.delete(jim) }
        #expect(fido.owner == nil)
        #expect(fido.owners.isEmpty)
        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
        #expect(fido.isInvalidated)
    }

    @Test("iterating Results reads every object once in insertion order; deleting Results unlinks them all", arguments: RealmKind.allCases)
    func resultsIterationAndDelete(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let owner = Self.makePerson(1, "Owner")
        try realm.write {
            realm.add(owner)
            for index in 0..<700 {
                let dog = Self.makeDog("dog \(index)", age: index)
                dog.owner = owner
                if index % 100 == 0 { owner.dogs.append(dog) }
                realm.add(dog)
            }
        }
        let dogs = realm.objects(Dog.self)
        #expect(dogs.map(\.age) == Array(0..<700), "batches of rows, in order, none missed")
        #expect(dogs.count == 700 && dogs[350].name == "dog 350")
        try realm.write { realm.delete(realm.objects(Dog.self)) }
        #expect(realm.objects(Dog.self).isEmpty)
        #expect(owner.dogs.isEmpty, "deleted objects leave every list")
        #expect(realm.objects(Person.self).count == 1)
    }

    @Test("objects read in batches stay right: kept across batches, changed by a write inside the loop, sorted past one batch of keys", arguments: RealmKind.allCases)
    func iterationBatches(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let count = 9_000
        let realm = try Self.realmOfDogs(kind, in: directory, count: count) { ("dog \($0)", $0) }
        // Every object kept: no batch's rows may be reused while its accessors live.
        let kept = Array(realm.objects(Dog.self))
        #expect(kept.map(\.age) == Array(0..<count))
        #expect(kept.map(\.name) == (0..<count).map { "dog \($0)" })
        // A write inside the loop changes rows the iterator has already read for later objects.
        var seen: [Int] = []
        for dog in realm.objects(Dog.self) {
            seen.append(dog.age)
            if dog.age == 10 {
                try realm.write { for later in realm.objects(Dog.self).filter("age > 10 AND age < 20") { later.age += 100_000 } }
            }
        }
        #expect(seen[0...10] == ArraySlice(0...10))
        #expect(seen[11..<20] == ArraySlice((11..<20).map { $0 + 100_000 }), "rows read before the write are read again")
        // Sorted descending: keys in reverse order, looked up together in batches of thousands.
        let descending = realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false)
        let ages = descending.map(\.age)
        #expect(ages == ages.sorted(by: >) && ages.count == count)
        #expect(Set(descending.map(\.name)).count == count)
        // A filtered and sorted collection whose batch lists a key twice cannot happen, but a
        // list can hold an object twice: each position still gets its own row.
        let owner = Self.makePerson(1, "Owner")
        try realm.write {
            realm.add(owner)
            owner.dogs.append(objectsIn: [kept[5], kept[3], kept[5], kept[8_999]])
        }
        #expect(owner.dogs.map(\.name) == ["dog 5", "dog 3", "dog 5", "dog 8999"])
    }

    @Test("iterating a class reads rows stored in overflow pages among ordinary ones, leaf by leaf", arguments: RealmKind.allCases)
    func iterationOverflowRows(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        // Every seventh row is longer than a quarter of a leaf, so it is stored in overflow
        // pages; the others share leaves, some of them across batch boundaries.
        func label(_ id: Int) -> String { id % 7 == 0 ? String(repeating: "x\(id % 10)", count: 2_000) : "r\(id)" }
        try realm.write {
            for id in 1...1_500 {
                let reading = Reading()
                reading.id = id
                reading.label = label(id)
                reading.value = Double(id) / 2
                realm.add(reading)
            }
        }
        var ids: [Int] = []
        var wrong: [Int] = []
        for reading in realm.objects(Reading.self) {
            ids.append(reading.id)
            if reading.label != label(reading.id) || reading.value != Double(reading.id) / 2 { wrong.append(reading.id) }
        }
        #expect(ids == Array(1...1_500))
        #expect(wrong.isEmpty)
        // Kept objects read the same, each from its own row.
        let kept = Array(realm.objects(Reading.self))
        #expect(kept.map(\.label) == (1...1_500).map(label))
        // A sum over the whole class reads them too, in its own pass over the leaves.
        #expect(realm.objects(Reading.self).sum(ofProperty: "value") as Double == (1...1_500).reduce(0.0) { $0 + Double($1) / 2 })
        #expect(realm.objects(Reading.self).sum(ofProperty: "id") as Int == (1...1_500).reduce(0, +))
        #expect(realm.objects(Reading.self).average(ofProperty: "value") as Double? == 375.25)
    }

    @Test("an object keeps its realm alive, whichever way it was read, and lets it go when it goes", arguments: RealmKind.allCases)
    func objectsKeepTheirRealm(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let configuration = kind.configuration(directory)
        // A frozen value keeps an in-memory realm's data; no live handle stays on this thread
        // (a second open on it would return that one).
        let keeper = try {
            let setUp = try Realm(configuration: configuration)
            try setUp.write { setUp.add(Self.makePerson(7, "Kept", dogs: [Self.makeDog("Rex", age: 3)])) }
            return setUp.freeze()
        }()
        // Read with its row (iteration), through a filter, and without a row (a key lookup).
        let reads: [(String, (Realm) throws -> Object?)] = [
            ("iterated", { realm in
                var iterator = realm.objects(Dog.self).makeIterator()
                return iterator.next()
            }),
            ("filtered", { realm in realm.objects(Dog.self).filter("age == 3").first }),
            ("looked up", { realm in realm.object(ofType: Person.self, forPrimaryKey: 7) }),
        ]
        for (how, read) in reads {
            weak var released: Realm?
            var kept: Object?
            do {
                let realm = try Realm(configuration: configuration)
                released = realm
                kept = try read(realm)
            }
            // The handle and the Results are gone from here; only the object holds the realm.
            #expect(released != nil, "\(how)")
            do {
                let object = try #require(kept)
                #expect(object.realm === released, "\(how)")
                if let dog = object as? Dog { #expect(dog.name == "Rex" && dog.age == 3, "\(how)") }
                if let person = object as? Person { #expect(person.name == "Kept" && person.dogs.map(\.name) == ["Rex"], "\(how)") }
            }
            kept = nil
            #expect(released == nil, "\(how): nothing holds the realm once its object is gone")
        }
        withExtendedLifetime(keeper) {}
    }
}

@Suite("Lists of managed objects")
struct ManagedListTests {
    @Test("a managed list is live and supports every mutation, for objects and primitives", arguments: RealmKind.allCases)
    func mutations(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let person = ObjectTests.makePerson(1, "Jim")
        let numbers = EveryType()
        try realm.write {
            realm.add(person)
            realm.add(numbers)
        }
        let other = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        let a = ObjectTests.makeDog("A"), b = ObjectTests.makeDog("B"), c = ObjectTests.makeDog("C")
        try realm.write {
            person.dogs.append(a)                      // unmanaged: added to the realm on the way
            person.dogs.append(objectsIn: [b, c, a])
            person.dogs.insert(c, at: 0)
        }
        #expect(other.dogs.map(\.name) == ["C", "A", "B", "C", "A"], "another accessor sees the change")
        #expect(a.realm === realm)
        try realm.write {
            person.dogs.remove(at: 1)
            person.dogs.move(from: 0, to: 3)
            person.dogs.swapAt(0, 1)
            person.dogs.replace(index: 2, object: b)
        }
        #expect(person.dogs.map(\.name) == ["C", "B", "B", "C"])
        try realm.write {
            numbers.ints.append(objectsIn: [5, 6])
            numbers.ints[0] = 7
            numbers.optionalStrings.append(nil)
        }
        #expect(Array(numbers.ints) == [7, 6] && Array(numbers.optionalStrings) == [nil])
        try realm.write { person.dogs.removeAll() }
        #expect(other.dogs.isEmpty)
        #expect(realm.objects(Dog.self).count == 3, "removing from a list deletes nothing")
    }
}

/// A model of value properties only, whose accessors iteration may reuse.
final class Reading: Object {
    @Persisted var id: Int
    @Persisted var label: String
    @Persisted var value: Double
}

/// RowValue properties and one that is not stored, which rules out reusing accessors.
final class Jotting: Object {
    @Persisted var id: Int
    var scratch = 0
}
