// A libFuzzer target: arbitrary bytes as a predicate, with arguments at the edges of every
// type, given to the throwing query API on a small realm, and the results read in full. Any
// input may be refused with a thrown error; none may crash, hang or trip the address
// sanitizer. Built with `-sanitize=fuzzer,address -D FUZZING` by `scripts/fuzz.sh`; built
// plainly (as `swift build` does), it replays the inputs named on its command line instead.
import AsyncRealm
import Foundation
import FuzzSupport

final class FuzzOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int?
    @Persisted var score: Double
    @Persisted var born: Date
    @Persisted var tags: List<String>
    @Persisted var pets: List<FuzzPet>
    @Persisted var labels: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var extra: AnyRealmValue
}

final class FuzzPet: Object {
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int
    @Persisted var owner: FuzzOwner?
    @Persisted(originProperty: "pets") var owners: LinkingObjects<FuzzOwner>
}

/// The arguments a predicate's `%@` and `$n` may name: the edges of each type.
let arguments: [any Sendable] = [
    Int.min, Int.max, 0, -1, Double.nan, Double.infinity, -0.0, "", "caf\u{E9}", "cafe\u{301}",
    Date(timeIntervalSinceReferenceDate: 1e20), Date.distantPast, String?.none, true, [1, 2, 3], "name", "pets.age",
]

/// The realm the predicates run on, made on the fuzzer's one thread at the first input.
/// (libFuzzer calls `LLVMFuzzerTestOneInput` on the thread that runs `main`, one input at a
/// time; the realm is confined to that thread, and only that thread touches it.)
nonisolated(unsafe) var fuzzRealm: Realm?

func realm() throws -> Realm {
    if let fuzzRealm { return fuzzRealm }
    let made = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "fuzz-query", objectTypes: [FuzzOwner.self, FuzzPet.self]))
    try made.write {
        for id in 0..<8 {
            let owner = FuzzOwner()
            owner.id = [Int.min, -1, 0, 1, 2, 3, Int.max - 1, Int.max][id]
            owner.name = ["", "a", "Ana", "caf\u{E9}", "cafe\u{301}", "ZOË", String(repeating: "x", count: 300), "b"][id]
            owner.age = id % 3 == 0 ? nil : id * 10
            owner.score = [Double.nan, -Double.infinity, -0.0, 0, 1.5, .infinity, 1e300, -7][id]
            owner.born = Date(timeIntervalSince1970: Double(id) * 1e9 - 3e9)
            owner.tags.append(objectsIn: ["t\(id)", "shared"])
            owner.labels.insert(objectsIn: ["l\(id % 3)", "shared"])
            owner.scores["k\(id % 4)"] = id
            owner.scores["shared"] = -id
            owner.extra = [
                AnyRealmValue.none, .int(id), .string("x\(id)"), .double(Double(id) / 2),
                .fromArray([.int(id), .fromDictionary(["k": .string("v\(id)")]), .fromArray([])]),
                .fromDictionary(["a": .int(id), "l": .fromArray([.int(1), .none])]),
            ][id % 6]
            let pet = FuzzPet()
            pet.name = "pet\(id)"
            pet.age = id
            pet.owner = owner
            owner.pets.append(pet)
            made.add(owner)
        }
    }
    fuzzRealm = made
    return made
}

/// Runs one input: the bytes are the predicate (as UTF-8, invalid bytes replaced).
func runOne(_ bytes: UnsafeRawBufferPointer) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let realm = try? realm() else { fatalError("the fuzzing realm could not be made") }
    if let predicate = try? RealmPredicate(text, arguments: arguments.map { $0 as Any }) {
        if let owners = try? realm.objects(FuzzOwner.self).filter(predicate) {
            _ = owners.count
            for owner in owners { _ = (owner.id, owner.name, owner.age, owner.pets.count) }
        }
        if let pets = try? realm.objects(FuzzPet.self).filter(predicate) {
            _ = pets.count
            for pet in pets { _ = (pet.name, pet.owner?.name) }
        }
    }
}

#if FUZZING
/// The program's `main` (see `runFuzzer`): libFuzzer, calling `runOne` with each input.
@_cdecl("FuzzQuery_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in
        runOne(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }
}
#else

/// Replays the inputs (files, or directories of them) named on the command line.
@main
enum Replay {
    static func main() throws {
        try replayInputs(CommandLine.arguments.dropFirst(), runOne)
    }
}
#endif
