import Foundation
import Testing
@testable import AsyncRealm
import TestSupport

/// How `Results.Iterator` reads: accessors reused when the caller let go of them, the last one
/// kept for the class's next iteration, and the rows a sort read used for the iteration.
@Suite("Iterating results: accessor reuse and kept rows")
struct ResultsIterationTests {
    @Test("iterating reuses an accessor the caller let go of, and never one that anything can still see", arguments: RealmKind.allCases)
    func accessorReuse(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        let count = 600  // past one batch of rows
        try realm.write {
            for id in 1...count {
                let reading = Reading()
                reading.id = id
                reading.label = "r\(id)"
                realm.add(reading)
            }
            for id in 1...3 {
                let jotting = Jotting()
                jotting.id = id
                realm.add(jotting)
            }
        }
        let readings = realm.objects(Reading.self)
        // Dropped at every step: one instance reads every row, each its own.
        var instances = Set<ObjectIdentifier>()
        var ids: [Int] = []
        for reading in readings {
            instances.insert(ObjectIdentifier(reading))
            ids.append(reading.id)
            #expect(reading.label == "r\(reading.id)" && reading.realm === realm)
        }
        #expect(ids == Array(1...count))
        #expect(instances.count == 1)
        // Kept: every object is an instance of its own, still reading its row.
        var kept: [Reading] = []
        for reading in readings { kept.append(reading) }
        #expect(Set(kept.map(ObjectIdentifier.init)).count == count)
        #expect(kept.map(\.id) == Array(1...count) && kept.map(\.label) == (1...count).map { "r\($0)" })
        // A weak reference is something that could see the change: the object is not reused.
        weak var previous: Reading?
        var previousID = 0
        for reading in readings {
            #expect(previous == nil || previous?.id == previousID)
            previous = reading
            previousID = reading.id
        }
        // So is an unowned reference, which keeps the object's memory (never read through
        // here: the object it holds is gone once the loop drops it, as it should be).
        struct UnownedReading { unowned let reading: Reading }
        var unownedReadings: [UnownedReading] = []
        instances.removeAll()
        for reading in readings {
            instances.insert(ObjectIdentifier(reading))
            unownedReadings.append(UnownedReading(reading: reading))
        }
        #expect(instances.count == count && unownedReadings.count == count)
        // The check behind reuse reads one word where the runtime's words work as it expects,
        // as they do on every platform this runs on (see `ReusableAccessor.heldOnceWord`).
        #expect(ReusableAccessor.heldOnceWord != .max)
        // An object deleted through its accessor and dropped is not reused as invalidated.
        var valid = 0
        for reading in readings {
            if reading.id == 10 {
                try realm.write { realm.delete(reading) }
                continue
            }
            if !reading.isInvalidated { valid += 1 }
        }
        #expect(valid == count - 1)
        // A property that is not stored rules reuse out: each object starts with its own.
        var scratches: [Int] = []
        for jotting in realm.objects(Jotting.self) {
            scratches.append(jotting.scratch)
            jotting.scratch = 7
        }
        #expect(scratches == [0, 0, 0])
    }

    @Test("an iteration hands the accessor it ended with to the class's next iteration, unless anything still holds it", arguments: RealmKind.allCases)
    func spareAccessor(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: kind.configuration(directory))
        try realm.write {
            for id in 1...50 {
                let reading = Reading()
                reading.id = id
                reading.label = "r\(id)"
                realm.add(reading)
            }
        }
        // A query run in a loop, each object dropped: one instance serves every query, each time
        // reading the row its query found.
        var instances = Set<ObjectIdentifier>()
        for id in 1...50 {
            var found: [Int] = []
            for reading in realm.objects(Reading.self).filter("id == %@", id) {
                instances.insert(ObjectIdentifier(reading))
                found.append(reading.id)
                #expect(reading.label == "r\(id)" && !reading.isInvalidated && reading.realm === realm)
            }
            #expect(found == [id])
        }
        #expect(instances.count == 1)
        // Between iterations the class holds it, without its row.
        let spare = try #require(realm.classInfoOrStop(for: Reading.self).spareAccessor)
        #expect(spare.__rowBuffer == nil)
        // An object kept from an iteration that ended is not the next iteration's.
        var kept: Reading?
        for reading in realm.objects(Reading.self).filter("id == 7") { kept = reading }
        for reading in realm.objects(Reading.self).filter("id == 8") {
            #expect(reading !== kept)
            #expect(reading.id == 8)
        }
        #expect(kept?.id == 7 && kept?.label == "r7")
        #expect(realm.classInfoOrStop(for: Reading.self).spareAccessor !== kept)
        // Nor is one only a weak reference still sees.
        weak var watched: Reading?
        for reading in realm.objects(Reading.self).filter("id == 9") { watched = reading }
        if let watched {
            for reading in realm.objects(Reading.self).filter("id == 10") { #expect(reading !== watched) }
            #expect(watched.id == 9)
        }
        // The spare reads the rows of the version it is reused at, not those it last read.
        try realm.write { realm.objects(Reading.self).filter("id == 11").first!.label = "changed" }
        for reading in realm.objects(Reading.self).filter("id == 11") { #expect(reading.label == "changed") }
        // A whole-class scan after filtered queries takes the spare too, and reads every row.
        #expect(realm.objects(Reading.self).map(\.id) == Array(1...50))
    }

    @Test("sorted results iterate from the rows their sort read, and read them again once the realm changes", arguments: RealmKind.allCases)
    func sortedIterationKeepsRows(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        let count = 5_000
        // Ages repeat, so the name decides within an age; keys and sorted order differ.
        let realm = try ObjectTests.realmOfDogs(kind, in: directory, count: count) { index in
            ("dog \(String(format: "%05d", (index * 7_919) % count))", index % 13)
        }
        let expected = realm.objects(Dog.self).map { ($0.age, $0.name) }
            .sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
        let sorted = realm.objects(Dog.self).sorted(by: [SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "name")])
        // `map` goes through the iterator, which keeps the rows (`Collection.map` would count
        // and subscript, keeping none).
        let iterated = sorted.map { ($0.age, $0.name) }
        #expect(iterated.elementsEqual(expected, by: ==))
        #expect(sorted.keysAndKeptRows.rows?.ranges.count == count, "the sort kept every row")
        #expect(realm.objects(Dog.self).keysAndKeptRows.rows == nil, "an unsorted collection keeps none")
        let counted = realm.objects(Dog.self).sorted(byKeyPath: "name")
        #expect(counted.count == count && counted.keysAndKeptRows.rows == nil, "counting keeps no rows")
        let filtered = realm.objects(Dog.self).filter("age == 3")
        var names: [String] = []
        for dog in filtered { names.append(dog.name) }
        #expect(filtered.keysAndKeptRows.rows?.ranges.count == names.count, "a filter keeps the rows it matched")
        #expect(names == realm.objects(Dog.self).map { ($0.age, $0.name) }.filter { $0.0 == 3 }.map(\.1))
        for position in [0, 1, count / 2, count - 1] {
            #expect((sorted[position].age, sorted[position].name) == expected[position], "sorted[\(position)]")
        }
        // Frozen: the version's rows, kept the same way.
        let frozen = sorted.freeze()
        #expect(frozen.map(\.name) == expected.map(\.1))
        #expect(frozen.map(\.age) == expected.map(\.0))
        // Limited and made distinct after sorting: the kept rows follow the keys.
        let limited = realm.objects(Dog.self).filter("TRUEPREDICATE SORT(age DESC, name ASC) LIMIT(20)")
        var limitedNames: [String] = []
        for dog in limited { limitedNames.append(dog.name) }
        #expect(limitedNames == expected.prefix(20).map(\.1))
        #expect(limited.keysAndKeptRows.rows?.ranges.count == 20)
        let distinct = realm.objects(Dog.self).filter("TRUEPREDICATE SORT(age DESC, name ASC) DISTINCT(age)")
        #expect(distinct.map(\.age) == Array((0..<13).reversed()))
        #expect(distinct.map(\.name) == (0..<13).reversed().map { age in expected.first { $0.0 == age }!.1 })
        // A write inside the loop: objects after it read their rows again.
        var seen: [Int] = []
        for dog in sorted {
            seen.append(dog.age)
            if seen.count == 10 {
                try realm.write { for later in realm.objects(Dog.self).filter("age == 0") { later.age = 100 } }
            }
        }
        #expect(seen.prefix(10).allSatisfy { $0 == 12 })
        #expect(seen.suffix(count / 13).allSatisfy { $0 == 100 }, "rows kept before the write are read again")
        // Without kept rows (counted first), in batches: a write that reorders the collection
        // does not change which objects the loop goes through.
        let reordering = realm.objects(Dog.self).sorted(byKeyPath: "age")
        #expect(reordering.count == count)
        var visited = Set<String>()
        var steps = 0
        for dog in reordering {
            visited.insert(dog.name)
            steps += 1
            if steps == 10 {
                try realm.write { for young in realm.objects(Dog.self).filter("age < 6") { young.age += 1_000 } }
            }
        }
        #expect(steps == count && visited.count == count, "every object once, though the write moved some to the end")
        // After the write the kept rows are gone: the next iteration sees the new values.
        #expect(sorted.first?.age ?? 0 >= 1_000)
        #expect(sorted.filter { $0.age == 0 }.isEmpty)
        // An object made from kept rows outlives its results.
        var kept: Dog?
        do { kept = realm.objects(Dog.self).sorted(byKeyPath: "name", ascending: true).first }
        #expect(kept?.name == "dog 00000")
    }

    @Test("a scan's objects read their rows in the page cache's leaves, and keep them through the leaf's eviction, writes to it and a frozen copy", arguments: RealmKind.allCases)
    func rowsReadInPlace(kind: RealmKind) throws {
        let directory = TemporaryDirectory()
        var configuration = kind.configuration(directory)
        configuration.pageCacheBytes = 64 << 10  // a few leaves: the scans below push each other's out
        let realm = try Realm(configuration: configuration)
        let count = 5_000
        func label(_ id: Int, _ round: Int) -> String { "reading \(id) of round \(round), long enough to fill leaves" }
        try realm.write {
            for id in 1...count { realm.add(Reading(value: ["id": id, "label": label(id, 0), "value": Double(id)])) }
            for id in 1...count { realm.add(Dog(value: ["name": "dog \(id)", "age": id])) }
        }
        // Kept while other scans fill the cache: each still reads its own row.
        let kept = Array(realm.objects(Reading.self))
        #expect(realm.objects(Dog.self).reduce(0) { $0 + $1.age } == count * (count + 1) / 2)
        #expect(kept.map(\.label) == (1...count).map { label($0, 0) })
        let frozen = realm.objects(Reading.self).freeze()
        // Changed in the loop that scans them, inside one write: each object reads its new
        // value, the ones after it their old one.
        try realm.write {
            for reading in realm.objects(Reading.self) {
                #expect(reading.label == label(reading.id, 0))
                reading.label = label(reading.id, 1)
                #expect(reading.label == label(reading.id, 1))
            }
        }
        #expect(realm.objects(Reading.self).map(\.label) == (1...count).map { label($0, 1) })
        #expect(kept.map(\.label) == (1...count).map { label($0, 1) })
        // The frozen results read the version before the write, from leaves the write copied.
        #expect(frozen.map(\.label) == (1...count).map { label($0, 0) })
        #expect(frozen.map(\.value) == (1...count).map(Double.init))
    }
}
