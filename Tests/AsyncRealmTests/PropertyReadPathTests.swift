import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

/// A model with a property of each type the getters read straight from the row, optionals and
/// an enum among them (see `Persistable+RowReads.swift`).
final class ReadPathObject: Object {
    enum Size: Int, PersistableEnum { case small = 1, large = 300 }

    @Persisted var count: Int
    @Persisted var small: Int8
    @Persisted var maybeCount: Int?
    @Persisted var flag: Bool
    @Persisted var maybeFlag: Bool?
    @Persisted var score: Double
    @Persisted var date: Date
    @Persisted var maybeDate: Date?
    @Persisted var name: String
    @Persisted var maybeName: String?
    @Persisted var size: Size

    /// Every property's value, in declaration order, as `==` compares them.
    var values: [AnyHashable] { Self.readers.map { $0(self) } }

    /// One reader per property, in declaration order.
    static let readers: [@Sendable (ReadPathObject) -> AnyHashable] = [
        { $0.count }, { $0.small }, { $0.maybeCount }, { $0.flag }, { $0.maybeFlag }, { $0.score.bitPattern },
        { $0.date }, { $0.maybeDate }, { $0.name }, { $0.maybeName }, { $0.size },
    ]

    /// Objects whose values take every path of the reads: varints of one byte, of a word and
    /// longer than a word; nulls; whole and fractional dates, before 1970 and far past it;
    /// strings empty, small, of 15 and 16 bytes, not ASCII, and long.
    static func samples() -> [ReadPathObject] {
        let counts = [0, 1, 127, 128, -1, -129, 1 << 40, Int.max, Int.min, 300]
        let dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_600_000_000), Date(timeIntervalSince1970: 1_600_000_000.25),
            Date(timeIntervalSince1970: -86_400 * 365 * 300), .distantFuture, .distantPast,
        ]
        let names = ["", "a", "fifteen bytes!!", "sixteen bytes!!!", "żółw", String(repeating: "long ", count: 40), "ab\u{0}c"]
        return (0..<21).map { index in
            let object = ReadPathObject()
            object.count = counts[index % counts.count]
            object.small = Int8(truncatingIfNeeded: index * 37)
            object.maybeCount = index % 3 == 0 ? nil : counts[(index + 3) % counts.count]
            object.flag = index % 2 == 0
            object.maybeFlag = index % 3 == 1 ? nil : index % 4 == 0
            object.score = [0.0, -0.0, 1.5, -1e300, .infinity, 123_456.789][index % 6]
            object.date = dates[index % dates.count]
            object.maybeDate = index % 2 == 1 ? nil : dates[(index + 2) % dates.count]
            object.name = names[index % names.count]
            object.maybeName = index % 4 == 3 ? nil : names[(index + 1) % names.count]
            object.size = index % 2 == 0 ? .small : .large
            return object
        }
    }

    /// The property indexes in the orders a caller may read them: in order, backwards, every
    /// other one, each alone, and a shuffle of a fixed seed.
    static var readOrders: [[Int]] {
        let all = Array(readers.indices)
        var generator = SeededGenerator(seed: 7)
        return [all, all.reversed(), all.filter { $0 % 2 == 1 }, all.shuffled(using: &generator)] + all.map { [$0] }
    }
}

@Suite("A property reads the same value whatever path its getter takes")
struct PropertyReadPathTests {
    /// Reads `objects` in every order and checks each value against `expected`, a fresh
    /// accessor per order so that each starts from its row's first column.
    static func check(_ objects: () -> [ReadPathObject], against expected: [[AnyHashable]]) {
        for order in ReadPathObject.readOrders {
            for (object, values) in zip(objects(), expected) {
                for index in order {
                    #expect(ReadPathObject.readers[index](object) == values[index], "property \(index), order \(order)")
                }
                // Read again, in order, from wherever the cursor was left.
                #expect(object.values == values, "order \(order), then in order")
            }
        }
    }

    @Test("in a thread-confined realm, a frozen one and another thread's read of the frozen one")
    func threadAndFrozen() throws {
        let samples = ReadPathObject.samples()
        let expected = samples.map(\.values)
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "read-paths", objectTypes: [ReadPathObject.self]))
        try realm.write { realm.add(samples) }
        Self.check({ Array(realm.objects(ReadPathObject.self)) }, against: expected)
        // Through iteration too: the iterator hands out accessors it reuses.
        for order in ReadPathObject.readOrders {
            for (object, values) in zip(realm.objects(ReadPathObject.self), expected) {
                #expect(order.map { ReadPathObject.readers[$0](object) } == order.map { values[$0] }, "order \(order)")
            }
        }
        let frozen = realm.freeze()
        Self.check({ Array(frozen.objects(ReadPathObject.self)) }, against: expected)
        nonisolated(unsafe) let frozenObjects = Array(frozen.objects(ReadPathObject.self))
        nonisolated(unsafe) var read: [[AnyHashable]] = []
        let done = DispatchSemaphore(value: 0)
        Thread {
            read = frozenObjects.map(\.values)
            done.signal()
        }.start()
        done.wait()
        #expect(read == expected)
    }

    @Test("in an actor-confined realm, whose reads check the actor out of line")
    func actorConfined() async throws {
        actor Reader {
            func readAll(_ expected: [[AnyHashable]]) async throws -> Bool {
                let realm = try await Realm(
                    configuration: Realm.Configuration(inMemoryIdentifier: "read-paths-actor", objectTypes: [ReadPathObject.self]), actor: self)
                try await realm.asyncWrite { realm.add(ReadPathObject.samples()) }
                for order in ReadPathObject.readOrders {
                    for (object, values) in zip(realm.objects(ReadPathObject.self), expected) {
                        guard order.map({ ReadPathObject.readers[$0](object) }) == order.map({ values[$0] }) else { return false }
                    }
                }
                return true
            }
        }
        #expect(try await Reader().readAll(ReadPathObject.samples().map(\.values)))
    }

    @Test("after a write changes the row, and after another object's write moves the realm on")
    func afterWrites() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "read-paths-writes", objectTypes: [ReadPathObject.self]))
        try realm.write { realm.add(ReadPathObject.samples()) }
        let objects = Array(realm.objects(ReadPathObject.self))
        #expect(objects[1].count == 1 && objects[1].small == 37)
        try realm.write {
            objects[1].count = Int.min
            objects[1].maybeName = nil
            objects[2].name = "changed"
        }
        #expect(objects[1].count == Int.min)
        #expect(objects[1].small == 37)
        #expect(objects[1].maybeName == nil)
        #expect(objects[2].name == "changed")
        try realm.write { realm.add(ReadPathObject()) }
        #expect(objects[1].count == Int.min && objects[2].name == "changed" && objects[1].small == 37)
    }
}
