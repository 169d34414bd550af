import Foundation
import StorageEngine

/// Where one stored property's `@Persisted` storage sits in instances of a class, and how its
/// value is read from there when an unmanaged object is added.
///
/// `type.storageValue(at:realm:)` is generic code reached through the metatype: it copies the
/// value and converts it through the runtime's value witnesses and a protocol witness, a few
/// dozen instructions and, for a string, a reference count taken and given back. The common
/// non-optional types are read through code specialised for each instead; the values are the
/// same (`_toStorage` of the same type), `ObjectTests.addedValuesOfEveryType` compares both.
struct StorageField {
    let offset: Int
    let type: PersistedPropertyDescribing.Type
    private let reading: Reading

    private enum Reading {
        case int, bool, double, string, date
        case general
    }

    init(offset: Int, type: PersistedPropertyDescribing.Type) {
        self.offset = offset
        self.type = type
        reading = switch ObjectIdentifier(type) {
        case ObjectIdentifier(Persisted<Int>.self): .int
        case ObjectIdentifier(Persisted<Bool>.self): .bool
        case ObjectIdentifier(Persisted<Double>.self): .double
        case ObjectIdentifier(Persisted<String>.self): .string
        case ObjectIdentifier(Persisted<Date>.self): .date
        default: .general
        }
    }

    /// The stored form of the value of this property in the unmanaged object at `base`.
    @inline(__always)
    func storageValue(in base: UnsafeMutableRawPointer, realm: Realm) -> RowValue {
        let pointer = base + offset
        switch reading {
        case .int: return Self.value(at: pointer, as: Int.self, realm: realm)
        case .bool: return Self.value(at: pointer, as: Bool.self, realm: realm)
        case .double: return Self.value(at: pointer, as: Double.self, realm: realm)
        case .string: return Self.value(at: pointer, as: String.self, realm: realm)
        case .date: return Self.value(at: pointer, as: Date.self, realm: realm)
        case .general: return type.storageValue(at: pointer, realm: realm)
        }
    }

    @inline(__always)
    private static func value<T: _Persistable>(at pointer: UnsafeMutableRawPointer, as _: T.Type, realm: Realm) -> RowValue {
        pointer.assumingMemoryBound(to: Persisted<T>.self).pointee.value._toStorage(realm: realm).value
    }
}
