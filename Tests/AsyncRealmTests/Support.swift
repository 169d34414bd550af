import Foundation
import Testing
@testable import AsyncRealm
import TestSupport
import StorageEngine

// The models and helpers the suites of this target share. (Models one suite uses alone are
// declared beside it.)

/// The reference models of the data-model guide.
final class Person: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var birthdate: Date?
    @Persisted var age: Int?
    @Persisted var dogs: List<Dog>
}

final class Dog: Object {
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int = 1
    @Persisted var owner: Person?
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    var scratch = 0          // not @Persisted: ignored, not stored
}

enum Size: Int, PersistableEnum { case small, medium, large }
enum Colour: String, PersistableEnum { case red, green }

final class EveryType: Object {
    @Persisted var bool: Bool
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var int64: Int64
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var uuid: UUID
    @Persisted var decimal: Decimal
    @Persisted var objectId: ObjectId
    @Persisted var size: Size
    @Persisted var colour: Colour?
    @Persisted var optionalInt: Int?
    @Persisted var optionalString: String?
    @Persisted var ints: List<Int>
    @Persisted var optionalStrings: List<String?>
    @Persisted var dogs: List<Dog>
}

/// Two versions of one class, for schema mismatches.
enum V1 {
    final class Item: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var name: String
    }
}

enum V2 {
    final class Item: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var title: String
        @Persisted(indexed: true) var count: Int?
    }
}

/// The two kinds of realm every scenario runs against.
enum RealmKind: String, CaseIterable, CustomTestStringConvertible {
    case file, inMemory

    var testDescription: String { rawValue }

    func configuration(_ directory: TemporaryDirectory, objectTypes: [Object.Type]? = nil) -> Realm.Configuration {
        switch self {
        case .file: return Realm.Configuration(fileURL: directory.file(), objectTypes: objectTypes)
        case .inMemory: return Realm.Configuration(inMemoryIdentifier: directory.url.lastPathComponent, objectTypes: objectTypes)
        }
    }
}

/// What `body` returns, run on a thread of its own (where no realm of this thread's cache is
/// open), waited for.
func onAnotherThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
    let result = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        result.withLock { $0 = Result { try body() } }
        done.signal()
    }
    thread.start()
    done.wait()
    return try result.withLock { $0! }.get()
}
