import Foundation
import StorageEngine

/// A number a collection of values can add up, as RealmSwift's `AddableType`: the integer
/// types, `Float`, `Double` and `Decimal`. (A collection of their optionals adds up its values,
/// nils left out.) It refines `_Persistable`, so a helper generic over it can call
/// `sum(ofProperty:)` and `average(ofProperty:)`.
///
/// Unlike RealmSwift's, `AnyRealmValue` and optionals do not conform: a sum here is added up
/// in the type itself.
public protocol AddableType: Equatable, _Persistable {
    /// Zero.
    static var _zero: Self { get }
    /// The sum of two values.
    static func _adding(_ left: Self, _ right: Self) -> Self
    /// The value as a `Double`, for a mean.
    var _doubleValue: Double { get }
    /// The value as a `Decimal` when it is one, for an exact mean; nil otherwise.
    var _decimalValue: Decimal? { get }
    /// The sum of `values`, in order.
    static func _sum(_ values: some Sequence<Self>) -> Self
    /// A mean, worked out as `double` (and as `decimal` for decimals), as this type.
    static func _mean(double: Double, decimal: Decimal?) -> Self
}

extension AddableType {
    public static func _sum(_ values: some Sequence<Self>) -> Self {
        values.reduce(_zero) { isNotANumber($1) ? $0 : _adding($0, $1) }
    }

    public var _decimalValue: Decimal? { nil }
}

extension AddableType where Self: FixedWidthInteger {
    public static var _zero: Self { .zero }
    public static func _adding(_ left: Self, _ right: Self) -> Self { left &+ right }
    public var _doubleValue: Double { Double(self) }
    /// The mean rounded toward zero, clamped to the type's range.
    public static func _mean(double: Double, decimal: Decimal?) -> Self {
        guard !double.isNaN else { return .zero }
        return Self(exactly: double.rounded(.towardZero)) ?? (double < 0 ? .min : .max)
    }
}

extension Int: AddableType {}
extension Int8: AddableType {}
extension Int16: AddableType {}
extension Int32: AddableType {}
extension Int64: AddableType {}

extension Float: AddableType {
    public static var _zero: Float { 0 }
    public static func _adding(_ left: Float, _ right: Float) -> Float { left + right }
    public var _doubleValue: Double { Double(self) }
    public static func _mean(double: Double, decimal: Decimal?) -> Float { Float(double) }
}

extension Double: AddableType {
    public static var _zero: Double { 0 }
    public static func _adding(_ left: Double, _ right: Double) -> Double { left + right }
    public var _doubleValue: Double { self }
    /// Added as every other sum of doubles is (`DoubleSum`), so that a list's sum is the one
    /// a query's `@sum` of it finds.
    public static func _sum(_ values: some Sequence<Double>) -> Double { values.laneSum() }
    public static func _mean(double: Double, decimal: Decimal?) -> Double { double }
}

extension Decimal: AddableType {
    public static var _zero: Decimal { 0 }
    public static func _adding(_ left: Decimal, _ right: Decimal) -> Decimal { left + right }
    public var _doubleValue: Double { NSDecimalNumber(decimal: self).doubleValue }
    public var _decimalValue: Decimal? { self }
    public static func _mean(double: Double, decimal: Decimal?) -> Decimal { decimal ?? Decimal(double) }
}

/// An `Optional`, for the aggregates of collections of optional values.
public protocol _OptionalValue {
    associatedtype Wrapped
    /// The value, or nil.
    var _wrapped: Wrapped? { get }
}

extension Optional: _OptionalValue {
    public var _wrapped: Wrapped? { self }
}

extension _OptionalValue {
    /// The type an optional wraps.
    static var wrappedType: Any.Type { Wrapped.self }
}

/// Whether `value` is a NaN (a `Double`, `Float` or `Decimal` one): what aggregates leave out,
/// as Realm's leave NaN out as they leave out nil, and what sorts before every number.
@inline(__always)
func isNotANumber<T: Equatable>(_ value: T) -> Bool {
    if T.self == Decimal.self, let decimal = value as? Decimal { return decimal.isNaN }
    return value != value
}

/// The smallest (or the largest) of `values`, NaNs left out (see `isNotANumber`).
func extreme<Value: Comparable>(of values: some Sequence<Value>, largest: Bool) -> Value? {
    let counted = values.lazy.filter { !isNotANumber($0) }
    return largest ? counted.max() : counted.min()
}

/// The mean of `values` as `T`, NaNs left out; nil for none. Decimals are averaged exactly.
func mean<Value: AddableType, T: AddableType>(of values: [Value]) -> T? {
    let values = values.filter { !isNotANumber($0) }
    guard !values.isEmpty else { return nil }
    let count = values.count
    if Value.self == Decimal.self {
        let decimal = values.reduce(Decimal(0)) { $0 + ($1._decimalValue ?? 0) } / Decimal(count)
        return T._mean(double: NSDecimalNumber(decimal: decimal).doubleValue, decimal: decimal)
    }
    return T._mean(double: values.map(\._doubleValue).laneSum() / Double(count), decimal: nil)
}

/// The aggregates of a `List` or `MutableSet` of values, as RealmSwift gives collections of
/// primitives: computed over the elements as they are now.
public protocol ValueCollectionAggregates: Sequence {}

extension List: ValueCollectionAggregates {}
extension MutableSet: ValueCollectionAggregates {}

extension ValueCollectionAggregates where Element: AddableType {
    /// The total of the elements, NaNs left out (as in Realm); zero for none. An integer total
    /// wraps past the type's range.
    ///
    /// - Returns: The sum.
    public func sum() -> Element {
        Element._sum(self)
    }

    /// The mean of the elements, NaNs left out (as in Realm), as a `Double`, a `Float` or a
    /// `Decimal` (the mean of decimals is exact).
    ///
    /// - Returns: The mean, or nil when there are no elements.
    public func average<T: AddableType>() -> T? {
        mean(of: Array(self))
    }
}

extension ValueCollectionAggregates where Element: _OptionalValue, Element.Wrapped: AddableType {
    /// The total of the values, nils and NaNs left out; zero for none, as in RealmSwift.
    ///
    /// - Returns: The sum.
    public func sum() -> Element.Wrapped {
        Element.Wrapped._sum(lazy.compactMap(\._wrapped))
    }

    /// The mean of the values, nils and NaNs left out.
    ///
    /// - Returns: The mean, or nil when there are no values.
    public func average<T: AddableType>() -> T? {
        mean(of: compactMap(\._wrapped))
    }
}

extension ValueCollectionAggregates where Element: _OptionalValue, Element.Wrapped: Comparable {
    /// The smallest value, nils and NaNs left out.
    ///
    /// - Returns: The smallest value, or nil when there are no values.
    public func min() -> Element.Wrapped? {
        extreme(of: lazy.compactMap(\._wrapped), largest: false)
    }

    /// The largest value, nils and NaNs left out.
    ///
    /// - Returns: The largest value, or nil when there are no values.
    public func max() -> Element.Wrapped? {
        extreme(of: lazy.compactMap(\._wrapped), largest: true)
    }

    /// The elements sorted, nils first when ascending (as Realm sorts them).
    ///
    /// - Parameter ascending: Whether the smallest comes first.
    /// - Returns: The elements in that order.
    public func sorted(ascending: Bool = true) -> [Element] {
        sortedOptionals(self, ascending: ascending)
    }
}

/// Whether `left` comes before `right` in ascending order as Realm sorts values: NaN before
/// every number (`<` alone holds for no NaN, which is no order `sorted` can use).
@inline(__always)
func sortsBefore<Value: Comparable>(_ left: Value, _ right: Value) -> Bool {
    switch (isNotANumber(left), isNotANumber(right)) {
    case (true, false): true
    case (false, false): left < right
    default: false
    }
}

/// `values` sorted, nils first when ascending (as Realm sorts them) and last when not.
func sortedOptionals<Value: _OptionalValue>(_ values: some Sequence<Value>, ascending: Bool) -> [Value] where Value.Wrapped: Comparable {
    let ordered = values.sorted { first, second in
        switch (first._wrapped, second._wrapped) {
        case (nil, nil), (_?, nil): false
        case (nil, _?): true
        case (let left?, let right?): sortsBefore(left, right)
        }
    }
    return ascending ? ordered : ordered.reversed()
}

extension ValueCollectionAggregates where Element: Comparable {
    /// The smallest element, NaNs left out, as Realm's aggregates leave them out.
    ///
    /// - Returns: The smallest element, or nil when there is none.
    public func min() -> Element? {
        extreme(of: self, largest: false)
    }

    /// The largest element, NaNs left out, as Realm's aggregates leave them out.
    ///
    /// - Returns: The largest element, or nil when there is none.
    public func max() -> Element? {
        extreme(of: self, largest: true)
    }

    /// The elements sorted, as RealmSwift's `sorted(ascending:)` for collections of values
    /// (NaN first when ascending, as Realm sorts it).
    ///
    /// - Parameter ascending: Whether the smallest comes first.
    /// - Returns: The elements in that order.
    public func sorted(ascending: Bool = true) -> [Element] {
        ascending ? sorted(by: sortsBefore) : sorted { sortsBefore($1, $0) }
    }
}

/// The aggregates of a map's values, as RealmSwift's `Map` has them.
extension Map where Value: AddableType {
    /// The total of the values, NaNs left out; zero for none.
    ///
    /// - Returns: The sum.
    public func sum() -> Value {
        Value._sum(values)
    }

    /// The mean of the values, NaNs left out.
    ///
    /// - Returns: The mean, or nil when the map is empty.
    public func average<T: AddableType>() -> T? {
        mean(of: values)
    }
}

extension Map where Value: _OptionalValue, Value.Wrapped: AddableType {
    /// The total of the values, nils and NaNs left out; zero for none.
    ///
    /// - Returns: The sum.
    public func sum() -> Value.Wrapped {
        Value.Wrapped._sum(values.lazy.compactMap(\._wrapped))
    }

    /// The mean of the values, nils and NaNs left out.
    ///
    /// - Returns: The mean, or nil when there are no values.
    public func average<T: AddableType>() -> T? {
        mean(of: values.compactMap(\._wrapped))
    }
}

extension Map where Value: Comparable {
    /// The values sorted, as RealmSwift's `Map.sorted(ascending:)` (NaN first when ascending,
    /// as Realm sorts it).
    ///
    /// - Parameter ascending: Whether the smallest comes first.
    /// - Returns: The values in that order.
    public func sorted(ascending: Bool = true) -> [Value] {
        ascending ? values.sorted(by: sortsBefore) : values.sorted { sortsBefore($1, $0) }
    }

    /// The smallest value, NaNs left out.
    ///
    /// - Returns: The smallest value, or nil when the map is empty.
    public func min() -> Value? {
        extreme(of: values, largest: false)
    }

    /// The largest value, NaNs left out.
    ///
    /// - Returns: The largest value, or nil when the map is empty.
    public func max() -> Value? {
        extreme(of: values, largest: true)
    }
}

extension Map where Value: _OptionalValue, Value.Wrapped: Comparable {
    /// The values sorted, nils first when ascending (as Realm sorts them).
    ///
    /// - Parameter ascending: Whether the smallest comes first.
    /// - Returns: The values in that order.
    public func sorted(ascending: Bool = true) -> [Value] {
        sortedOptionals(values, ascending: ascending)
    }

    /// The smallest value, nils and NaNs left out.
    ///
    /// - Returns: The smallest value, or nil when there are no values.
    public func min() -> Value.Wrapped? {
        extreme(of: values.lazy.compactMap(\._wrapped), largest: false)
    }

    /// The largest value, nils and NaNs left out.
    ///
    /// - Returns: The largest value, or nil when there are no values.
    public func max() -> Value.Wrapped? {
        extreme(of: values.lazy.compactMap(\._wrapped), largest: true)
    }
}
