import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

final class PrimitiveLists: Object {
    @Persisted var int: List<Int>
    @Persisted var intOpt: List<Int?>
    @Persisted var double: List<Double>
    @Persisted var floatOpt: List<Float?>
    @Persisted var string: List<String>
    @Persisted var date: List<Date>
    @Persisted var decimal: List<Decimal>
    @Persisted var doubleSet: MutableSet<Double?>
    @Persisted var scores: Map<String, Int>
    @Persisted var prices: Map<String, Decimal?>
}

/// RealmSwift's `PrimitiveListTests`: every list operation on lists of values, managed and
/// unmanaged, and the aggregates of lists, sets and maps of values, optional ones included
/// (nils left out, the sum and extremes of the wrapped type, as in RealmSwift).
@Suite("Collections of values")
struct PrimitiveListTests {
    func exercise<T: RealmCollectionValue>(_ array: List<T>, _ values: [T], _ label: String) {
        #expect(array.index(of: values[0]) == nil, "\(label)")
        array.append(values[0]); array.append(values[1])
        #expect(array.index(of: values[1]) == 1, "\(label)")
        array.removeAll()
        array.append(objectsIn: values)
        #expect(array.first == values.first && array.last == values.last, "\(label)")
        array.insert(values[2], at: 0)
        #expect(Array(array) == [values[2]] + values, "\(label)")
        array.remove(at: 0)
        array.removeLast()
        #expect(Array(array) == Array(values.prefix(2)), "\(label)")
        array.append(values[2])
        array.replace(index: 1, object: values[0])
        #expect(Array(array) == [values[0], values[0], values[2]], "\(label)")
        array.replaceSubrange(0..<1, with: values)
        #expect(array.count == 5, "\(label)")
        array.replaceSubrange(1..<4, with: [])
        #expect(Array(array) == [values[0], values[2]], "\(label) \(Array(array))")
        array.move(from: 1, to: 0)
        #expect(Array(array) == [values[2], values[0]], "\(label)")
        array.swapAt(0, 1)
        #expect(Array(array) == [values[0], values[2]], "\(label)")
        array.removeLast(2)
        #expect(array.isEmpty, "\(label)")
    }

    @Test("list operations and aggregates, unmanaged and managed", arguments: [false, true])
    func lists(managed: Bool) throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "primitive-lists", objectTypes: [PrimitiveLists.self]))
        let object = PrimitiveLists()
        if managed { realm.beginWrite(); realm.add(object) }
        exercise(object.int, [1, 2, 3], "int")
        exercise(object.intOpt, [nil, 1, 3], "intOpt")
        exercise(object.double, [1.1, 2.2, 3.3], "double")
        exercise(object.floatOpt, [nil, 1.1, 3.3], "floatOpt")
        exercise(object.string, ["a", "b", "c"], "string")
        exercise(object.date, [Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2), Date(timeIntervalSince1970: 3)], "date")
        exercise(object.decimal, [1, 2, 3], "decimal")
        #expect(object.int.min() == nil && object.int.sum() == 0 && (object.int.average() as Double?) == nil)
        object.int.append(objectsIn: [3, 1, 2])
        #expect(object.int.min() == 1 && object.int.max() == 3 && object.int.sum() == 6 && object.int.average() == 2.0)
        object.intOpt.append(objectsIn: [nil, 3, 1])
        #expect(object.intOpt.min() == 1 && object.intOpt.max() == 3 && object.intOpt.sum() == 4 && object.intOpt.average() == 2.0)
        object.floatOpt.append(objectsIn: [nil, 1.5])
        #expect(object.floatOpt.sum() == 1.5 && object.floatOpt.average() == 1.5)
        object.decimal.append(objectsIn: [1, 2])
        #expect(object.decimal.sum() == 3 && object.decimal.average() == Decimal(1.5))
        #expect(Array(object.int.sorted()) == [1, 2, 3])
        #expect(Array(object.int.sorted(ascending: false)) == [3, 2, 1])
        #expect(object.intOpt.sorted() == [nil, 1, 3] && object.intOpt.sorted(ascending: false) == [3, 1, nil])
        object.doubleSet.insert(objectsIn: [nil, 2.5, 0.5])
        #expect(object.doubleSet.min() == 0.5 && object.doubleSet.max() == 2.5 && object.doubleSet.sum() == 3)
        #expect(object.doubleSet.average() == 1.5)
        #expect(object.scores.sum() == 0 && object.scores.min() == nil && (object.scores.average() as Double?) == nil)
        object.scores["a"] = 4
        object.scores["b"] = 1
        #expect(object.scores.sum() == 5 && object.scores.min() == 1 && object.scores.max() == 4 && object.scores.average() == 2.5)
        object.prices["a"] = .some(nil)
        object.prices["b"] = Decimal(string: "0.1")!
        object.prices["c"] = Decimal(string: "0.2")!
        // A mean of decimals is exact: 0.15, not the nearest Double.
        #expect(object.prices.sum() == Decimal(string: "0.3")! && object.prices.average() == Decimal(string: "0.15")!)
        #expect(object.prices.min() == Decimal(string: "0.1")! && object.prices.max() == Decimal(string: "0.2")!)
        if managed {
            let list = object.int
            #expect(!list.isInvalidated)
            realm.delete(object)
            #expect(list.isInvalidated)
            realm.cancelWrite()
        }
    }
}
