import Foundation
import StorageEngine

/// The minimum, maximum, sum and mean of a property's values (nil and NaN ones left out, as
/// Realm leaves them out), as `Results` and unmanaged lists compute them. `property` in each
/// names the property for messages (`'Dog.age'`).
enum Aggregates {
    /// The value for which `better(order(value, best))` holds against every other, as `T`.
    static func extreme<T: _Persistable>(_ values: [QueryScalar], type: PropertyType, _ better: (Int) -> Bool) -> T? {
        let values = values.filter(\.isAggregated)
        guard var best = values.first else { return nil }
        for value in values.dropFirst() where better(QueryScalar.order(value, best) ?? 0) { best = value }
        return T._fromAny(best.swiftValue(type: type))
    }

    /// The sum (`Int128`, `Double` or `Decimal`, as the property's type) and the count.
    static func total(_ values: [QueryScalar], type: PropertyType, of property: String) -> (Any, Int) {
        let values = values.filter(\.isAggregated)
        switch type {
        case .int:
            return (values.reduce(Int128(0)) { if case .int(let number) = $1 { $0 + Int128(number) } else { $0 } }, values.count)
        case .float, .double:
            // Added as the packed columns add them (`DoubleSum`): every path's sum is the same.
            var sum = DoubleSum()
            for case .double(let number) in values { sum.add(number) }
            return (sum.total, values.count)
        case .decimal128:
            return (values.reduce(Decimal(0)) { if case .decimal(let number) = $1 { $0 + number } else { $0 } }, values.count)
        default:
            stop("cannot sum \(property): it is \(type.rawValue), not a number")
        }
    }

    /// The sum of `total` as `T`.
    ///
    /// Integers add up exactly, however many and however large. The sum is returned as `T`
    /// when `T` holds it (a `Double`, `Float` or `Decimal` always does, to its precision); a sum
    /// `T` cannot hold (two `Int64.max` summed as `Int`) stops with a message naming the
    /// property and the sum, never a wrapped number.
    static func sum<T: _Persistable>(_ total: (sum: Any, count: Int), as _: T.Type, of property: String) -> T {
        guard let value = number(total.sum, as: T.self) else {
            stop("the sum of \(property) is \(total.sum), which \(T.self) cannot hold; ask for a Decimal or Double sum instead")
        }
        return value
    }

    /// The mean of `total` as `T`, nil if it counts no value.
    static func average<T: _Persistable>(_ total: (sum: Any, count: Int), as _: T.Type, of property: String) -> T? {
        let (sum, count) = total
        guard count > 0 else { return nil }
        var mean: Any = switch sum {
        case let sum as Decimal: sum / Decimal(count)
        // Integers asked for as a decimal: worked out in decimals, exactly.
        case let sum as Int128 where isDecimal(T.self): Decimal(sum) / Decimal(count)
        case let sum as Int128: Double(sum) / Double(count)
        case let sum as Double: sum / Double(count)
        default: sum
        }
        // A `Double` mean asked for as a decimal, as RealmSwift's `Decimal128` takes a number.
        if isDecimal(T.self), let double = mean as? Double, let converted = decimal(double) { mean = converted }
        guard let value = T._fromAny(mean) else {
            stop("the average of \(property) is \(mean), which is not a \(T.self)")
        }
        return value
    }

    /// `sum` (`Int128`, `Double` or `Decimal`) as `T`: exactly where `T` holds it.
    private static func number<T: _Persistable>(_ sum: Any, as _: T.Type) -> T? {
        if isDecimal(T.self), let sum = decimal(sum) { return T._fromAny(sum) }
        guard let whole = sum as? Int128 else { return T._fromAny(sum) }
        if let exact = Int(exactly: whole), let value = T._fromAny(exact) { return value }
        return T._fromAny(Double(whole))
    }

    /// Whether `T` is `Decimal` (RealmSwift's `Decimal128`) or its optional.
    private static func isDecimal<T>(_: T.Type) -> Bool {
        T.self == Decimal.self || T.self == Decimal?.self
    }

    /// A sum (`Int128`, `Double` or `Decimal`) as a decimal: exactly for integers and decimals,
    /// as Foundation converts it for a `Double`; nil for a `Double` no decimal holds (NaN, an
    /// infinity).
    private static func decimal(_ sum: Any) -> Decimal? {
        switch sum {
        case let sum as Decimal: sum
        case let sum as Int128: Decimal(sum)
        case let sum as Double where sum.isFinite: Decimal(sum)
        default: nil
        }
    }
}
