import Foundation

extension Query where T: PersistableEnum {
    /// The enum's raw value, to compare with an `Int` or `String` or use string operations on:
    /// `$0.size.rawValue > 0`, `$0.colour.rawValue.starts(with: "r")`.
    public var rawValue: Query<T.RawValue> { Query<T.RawValue>(realm: realm, path: path, aggregate: aggregate) }
}

extension Query where T: OptionalPersistableEnum {
    /// The raw value of an optional enum, nil where the property is nil: `$0.colour.rawValue == "red"`.
    public var rawValue: Query<T.Wrapped.RawValue?> { Query<T.Wrapped.RawValue?>(realm: realm, path: path, aggregate: aggregate) }
}

/// Optional enums, whose queries reach the raw value with `rawValue`.
public protocol OptionalPersistableEnum {
    /// The enum.
    associatedtype Wrapped: PersistableEnum
}

extension Optional: OptionalPersistableEnum where Wrapped: PersistableEnum {}

// An enum with a numeric raw value orders as its raw value, as in RealmSwift: `$0.size > .small`.
// (Enums with `String` raw values take only equality, as there.)

extension Query where T: PersistableEnum, T.RawValue: Comparable & Numeric {
    /// Whether the raw value is greater than `rhs`'s.
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.greater, rhs) }
    /// Whether the raw value is greater than or equal to `rhs`'s.
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.greaterOrEqual, rhs) }
    /// Whether the raw value is less than `rhs`'s.
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.less, rhs) }
    /// Whether the raw value is less than or equal to `rhs`'s.
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.lessOrEqual, rhs) }
}

extension Query where T: OptionalPersistableEnum, T.Wrapped.RawValue: Comparable & Numeric {
    /// Whether the raw value is greater than `rhs`'s (never for nil).
    public static func > (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.greater, rhs) }
    /// Whether the raw value is greater than or equal to `rhs`'s (never for nil).
    public static func >= (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.greaterOrEqual, rhs) }
    /// Whether the raw value is less than `rhs`'s (never for nil).
    public static func < (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.less, rhs) }
    /// Whether the raw value is less than or equal to `rhs`'s (never for nil).
    public static func <= (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.lessOrEqual, rhs) }
}

// An enum that is also `Comparable` meets both the forms above and those of comparable values;
// these, more specific than either, settle which `>` is meant (the same comparison).

extension Query where T: PersistableEnum & Comparable, T.RawValue: Comparable & Numeric {
    /// Whether the raw value is greater than `rhs`'s.
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.greater, rhs) }
    /// Whether the raw value is greater than or equal to `rhs`'s.
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.greaterOrEqual, rhs) }
    /// Whether the raw value is less than `rhs`'s.
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.less, rhs) }
    /// Whether the raw value is less than or equal to `rhs`'s.
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.predicate(.lessOrEqual, rhs) }
}

extension Query where T: OptionalPersistableEnum & OptionalQueryComparable, T.Wrapped.RawValue: Comparable & Numeric {
    /// Whether the raw value is greater than `rhs`'s (never for nil).
    public static func > (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.greater, rhs) }
    /// Whether the raw value is greater than or equal to `rhs`'s (never for nil).
    public static func >= (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.greaterOrEqual, rhs) }
    /// Whether the raw value is less than `rhs`'s (never for nil).
    public static func < (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.less, rhs) }
    /// Whether the raw value is less than or equal to `rhs`'s (never for nil).
    public static func <= (lhs: Query, rhs: T.Wrapped) -> Query<Bool> { lhs.predicate(.lessOrEqual, rhs) }
}
