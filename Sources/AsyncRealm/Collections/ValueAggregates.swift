import Foundation
import StorageEngine

/// A number a collection of values can add up, as RealmSwift's `AddableType`: the integer
/// types, `Float`, `Double`, `Decimal`, and their optionals (whose nils count for nothing).
public protocol AddableType {
    /// Zero.
    static var _zero: Self { get }
    /// The sum of two values (nil taken as zero).
    static func _adding(_ left: Self, _ right: Self) -> Self
    /// The value as a `Double` for a mean; nil for nil.
    var _doubleValue: Double? { get }
    /// The sum of `values`, in order (nils taken as zero).
    static func _sum(_ values: some Sequence<Self>) -> Self
}

extension AddableType {
    public static func _sum(_ values: some Sequence<Self>) -> Self {
        values.reduce(_zero, _adding)
    }
}

extension AddableType where Self: FixedWidthInteger {
    public static var _zero: Self { .zero }
    public static func _adding(_ left: Self, _ right: Self) -> Self { left &+ right }
    public var _doubleValue: Double? { Double(self) }
}

extension Int: AddableType {}
extension Int8: AddableType {}
extension Int16: AddableType {}
extension Int32: AddableType {}
extension Int64: AddableType {}

extension Float: AddableType {
    public static var _zero: Float { 0 }
    public static func _adding(_ left: Float, _ right: Float) -> Float { left + right }
    public var _doubleValue: Double? { Double(self) }
}

extension Double: AddableType {
    public static var _zero: Double { 0 }
    public static func _adding(_ left: Double, _ right: Double) -> Double { left + right }
    public var _doubleValue: Double? { self }
    /// Added as every other sum of doubles is (`DoubleSum`), so that a list's sum is the one
    /// a query's `@sum` of it finds.
    public static func _sum(_ values: some Sequence<Double>) -> Double { values.laneSum() }
}

extension Decimal: AddableType {
    public static var _zero: Decimal { 0 }
    public static func _adding(_ left: Decimal, _ right: Decimal) -> Decimal { left + right }
    public var _doubleValue: Double? { NSDecimalNumber(decimal: self).doubleValue }
}

extension Optional: AddableType where Wrapped: AddableType {
    public static var _zero: Wrapped? { Wrapped._zero }
    public static func _adding(_ left: Wrapped?, _ right: Wrapped?) -> Wrapped? {
        Wrapped._adding(left ?? Wrapped._zero, right ?? Wrapped._zero)
    }
    public var _doubleValue: Double? { self?._doubleValue }
    public static func _sum(_ values: some Sequence<Wrapped?>) -> Wrapped? {
        Wrapped._sum(values.lazy.compactMap { $0 })
    }
}

/// The aggregates of a `List` or `MutableSet` of values, as RealmSwift gives collections of
/// primitives: computed over the elements as they are now.
public protocol ValueCollectionAggregates: Sequence {}

extension List: ValueCollectionAggregates {}
extension MutableSet: ValueCollectionAggregates {}

extension ValueCollectionAggregates where Element: AddableType {
    /// The total of the elements (nils left out); zero for none. An integer total wraps past
    /// the type's range.
    ///
    /// - Returns: The sum.
    public func sum() -> Element {
        Element._sum(self)
    }

    /// The mean of the elements, nils left out.
    ///
    /// - Returns: The mean, or nil when there are no values.
    public func average<T: BinaryFloatingPoint>() -> T? {
        let values = compactMap(\._doubleValue)
        guard !values.isEmpty else { return nil }
        return T(values.laneSum() / Double(values.count))
    }
}

extension ValueCollectionAggregates where Element: Comparable {
    /// The elements sorted, as RealmSwift's `sorted(ascending:)` for collections of values.
    ///
    /// - Parameter ascending: Whether the smallest comes first.
    /// - Returns: The elements in that order.
    public func sorted(ascending: Bool = true) -> [Element] {
        ascending ? sorted(by: <) : sorted(by: >)
    }
}
