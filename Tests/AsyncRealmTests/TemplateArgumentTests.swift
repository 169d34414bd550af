import Foundation
import Testing
@testable import AsyncRealm

/// A template's column compared with one argument (`QueryBinder.ResolvedComparison.DirectArgument`)
/// takes an argument of the column's type as it is, and anything else the general way: both
/// must give what binding the predicate afresh gives.
@Suite("Template arguments")
struct TemplateArgumentTests {
    /// What filtering gave: the `int`s of the objects found, in order, or the error's message.
    private enum Outcome: Equatable {
        case found([Int])
        case failed(String)

        init(_ filter: () throws -> Results<EveryType>) {
            do {
                self = .found(Array(try filter()).map(\.int))
            } catch {
                self = .failed("\(error)")
            }
        }
    }

    @Test("every property type and operator with arguments of every kind: a template gives what binding afresh gives")
    func everyTypeAndOperator() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "template-arguments"))
        let base = Date(timeIntervalSince1970: 1_000_000)
        let uuids = [UUID(), UUID(), UUID()]
        let objectIds = [ObjectId.generate(), ObjectId.generate(), ObjectId.generate()]
        try realm.write {
            for index in 0..<3 {
                let object = EveryType()
                object.bool = index % 2 == 0
                object.int = index
                object.float = [Float(0.1), Float(1.1), Float(2.5)][index]
                object.double = Double(index) * 1.5
                object.string = ["ab", "abc", "Bc"][index]
                object.data = Data(object.string.utf8)
                object.date = base.addingTimeInterval(Double(index))
                object.uuid = uuids[index]
                object.decimal = Decimal(index)
                object.objectId = objectIds[index]
                object.optionalInt = index == 1 ? nil : index
                object.optionalString = index == 2 ? nil : object.string
                realm.add(object)
            }
        }
        let arguments: [Any] = [
            // 1.1 as a double is not 1.1 as a float: a float column's argument is converted.
            1, 1.5, 1.1, Float(1.1), Decimal(2), true, "abc", "Ab", Data("abc".utf8), base.addingTimeInterval(1),
            uuids[1], objectIds[2], NSNull(),
        ]
        let properties = ["bool", "int", "float", "double", "string", "data", "date", "uuid", "decimal", "objectId", "optionalInt", "optionalString"]
        let operators = ["==", "!=", "<", ">=", "BEGINSWITH", "CONTAINS[c]", "==[c]", "LIKE", "IN"]
        var (found, failed) = (0, 0)
        for property in properties {
            for op in operators {
                let text = "\(property) \(op) %@"
                // Twice over, so that every call after the first finds the string's template.
                for argument in arguments + arguments {
                    let fresh = Outcome { try realm.objects(EveryType.self).filter(RealmPredicate(text, arguments: [argument])) }
                    let templated = Outcome { try realm.objects(EveryType.self).filter(text, values: RealmPredicate.values(of: [argument])) }
                    #expect(templated == fresh, "\(text) with \(argument)")
                    if case .found(let ints) = fresh, !ints.isEmpty { found += 1 } else if case .failed = fresh { failed += 1 }
                }
            }
        }
        // The calls find objects and meet errors, both, and plenty of each.
        #expect(found > 100 && failed > 500, "found \(found), failed \(failed)")
    }

    @Test("a chain's parts made again for each call: earlier results keep their own arguments, and a failed call spoils no later one")
    func chainsKeepEachCallsArguments() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "template-chains"))
        try realm.write {
            for index in 0..<6 {
                let object = EveryType()
                object.int = index
                object.string = ["a", "b", "c"][index % 3]
                realm.add(object)
            }
        }
        let objects = realm.objects(EveryType.self)
        let text = "string == %@ AND int > %@ AND int != 100"
        // Each call's results held while the next calls are made with other arguments.
        let held = try (0..<3).map { step in (step, try objects.filter(text, values: RealmPredicate.values(of: [["a", "b", "c"][step], 0]))) }
        for (step, results) in held {
            #expect(Array(results).map(\.int) == [[3], [1, 4], [2, 5]][step], "call \(step)")
        }
        // A wrong argument for the second part fails after the first part was made again.
        #expect(throws: (any Error).self) { try objects.filter(text, values: RealmPredicate.values(of: ["a", "x"])) }
        let after = try objects.filter(text, values: RealmPredicate.values(of: ["b", 1]))
        #expect(Array(after).map(\.int) == [4])
        // The results of an OR with arguments, kept while another call is made, too.
        let either = try objects.filter("int == %@ OR int == %@", values: RealmPredicate.values(of: [1, 2]))
        let other = try objects.filter("int == %@ OR int == %@", values: RealmPredicate.values(of: [4, 5]))
        #expect(Array(either).map(\.int) == [1, 2])
        #expect(Array(other).map(\.int) == [4, 5])
        #expect(held.map { $0.1.count } == [1, 2, 2])
    }
}
