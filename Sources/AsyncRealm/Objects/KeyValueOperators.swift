import Foundation

/// Key-value coding's collection operators, which a key path may name where it reaches a
/// collection: `results.value(forKeyPath: "@count")`, `person.value(forKeyPath: "dogs.@sum.age")`.
/// RealmSwift's collections answer them as Foundation's arrays do, with Realm's aggregates:
///
/// - `@count`: how many elements (the rest of the key path is not read);
/// - `@sum.p`: the sum of the numbers at `p`, 0 for none: an `Int` for integers, a `Double`
///   once a `Float` or `Double` is among them, a `Decimal` once a `Decimal` is;
/// - `@avg.p`: their mean, a `Double` (a `Decimal` for decimals), nil for none;
/// - `@min.p`, `@max.p`: the smallest or largest number or date at `p`, nil for none;
/// - `@unionOfObjects.p`, `@distinctUnionOfObjects.p`: the values at `p` as an array, nils left
///   out, the second without repeats (in first-seen order).
///
/// Nil values are left out of every aggregate, as Realm's are.
enum KeyValueOperator: String {
    case count, sum, avg, min, max, unionOfObjects, distinctUnionOfObjects

    /// Applies `name` (`"@sum"`) to `value`, which must be a collection, reading each element at
    /// `rest`, the key path after the operator.
    static func apply(_ name: Substring, rest: ArraySlice<Substring>, to value: Any?) -> Any? {
        guard let operation = KeyValueOperator(rawValue: String(name.dropFirst())) else {
            stop("'\(name)' is not a collection operator; use @count, @sum, @avg, @min, @max, @unionOfObjects or @distinctUnionOfObjects")
        }
        guard let elements = Object.elements(ofCollection: value) else {
            stop("'\(name)' applies to a list, set or results, not to \(value.map { "a \(type(of: $0))" } ?? "nil")")
        }
        guard operation == .count || !rest.isEmpty else {
            stop("'\(name)' needs the property it aggregates after it, as in '\(name).age'")
        }
        // The values at the rest of the path, nils left out; `@count` reads none.
        let values = { elements.compactMap { Object.value(atPath: rest, of: $0) } }
        let path = rest.joined(separator: ".")
        switch operation {
        case .count: return elements.count
        case .sum: return AggregatedNumbers(values(), operator: name, path: path).sum
        case .avg: return AggregatedNumbers(values(), operator: name, path: path).average
        case .min: return extreme(of: values(), path: path, name: name, keeping: <)
        case .max: return extreme(of: values(), path: path, name: name, keeping: >)
        case .unionOfObjects: return values()
        case .distinctUnionOfObjects: return distinct(values())
        }
    }

    /// The value `keeping` prefers among `values`, which must all be numbers or all dates.
    private static func extreme(
        of values: [Any], path: String, name: Substring, keeping prefers: (OrderedValue, OrderedValue) -> Bool
    ) -> Any? {
        var best: (value: Any, order: OrderedValue)?
        for value in values {
            guard let order = OrderedValue(value) else {
                stop("'\(name).\(path)' compares numbers and dates; \(type(of: value)) is neither")
            }
            if let current = best {
                guard order.isComparable(with: current.order) else {
                    stop("'\(name).\(path)' cannot compare a \(type(of: value)) with a \(type(of: current.value))")
                }
                if prefers(order, current.order) { best = (value, order) }
            } else {
                best = (value, order)
            }
        }
        return best?.value
    }

    private static func distinct(_ values: [Any]) -> [Any] {
        var seen = Set<AnyHashable>()
        var kept: [Any] = []
        for value in values {
            guard let hashable = value as? AnyHashable else {
                kept.append(value)
                continue
            }
            if seen.insert(hashable).inserted { kept.append(value) }
        }
        return kept
    }
}

/// A number or a date, ordered as `@min` and `@max` compare them: integers exactly, any other
/// number as a `Double` (a `Decimal` with another `Decimal`).
enum OrderedValue: Comparable {
    case integer(Int64), floating(Double), decimal(Decimal), date(Date)

    init?(_ value: Any) {
        switch value {
        case let date as Date: self = .date(date)
        default:
            switch AggregatedNumbers.Number(value) {
            case .integer(let integer)?: self = .integer(integer)
            case .floating(let floating)?: self = .floating(floating)
            case .decimal(let decimal)?: self = .decimal(decimal)
            case nil: return nil
            }
        }
    }

    func isComparable(with other: OrderedValue) -> Bool {
        switch (self, other) {
        case (.date, .date): true
        case (.date, _), (_, .date): false
        default: true
        }
    }

    static func < (lhs: OrderedValue, rhs: OrderedValue) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(left), .integer(right)): left < right
        case let (.date(left), .date(right)): left < right
        case let (.decimal(left), .decimal(right)): left < right
        default: lhs.approximation < rhs.approximation
        }
    }

    private var approximation: Double {
        switch self {
        case .integer(let integer): Double(integer)
        case .floating(let floating): floating
        case .decimal(let decimal): NSDecimalNumber(decimal: decimal).doubleValue
        case .date(let date): date.timeIntervalSinceReferenceDate
        }
    }
}

/// The numbers `@sum` and `@avg` add up, typed as Realm's aggregates are.
struct AggregatedNumbers {
    enum Number {
        case integer(Int64), floating(Double), decimal(Decimal)

        init?(_ value: Any) {
            switch value {
            case let number as Int: self = .integer(Int64(number))
            case let number as Int64: self = .integer(number)
            case let number as Int32: self = .integer(Int64(number))
            case let number as Int16: self = .integer(Int64(number))
            case let number as Int8: self = .integer(Int64(number))
            case let number as Double: self = .floating(number)
            case let number as Float: self = .floating(Double(number))
            case let number as Decimal: self = .decimal(number)
            default: return nil
            }
        }
    }

    private var integers: Int64 = 0
    private var floating: Double = 0
    private var decimals: Decimal = 0
    private var hasFloating = false
    private var hasDecimals = false
    private var count = 0

    init(_ values: [Any], operator name: Substring, path: String) {
        for value in values {
            guard let number = Number(value) else {
                stop("'\(name).\(path)' adds up numbers; \(type(of: value)) is not one")
            }
            count += 1
            switch number {
            case .integer(let integer): integers &+= integer
            case .floating(let double): floating += double; hasFloating = true
            case .decimal(let decimal): decimals += decimal; hasDecimals = true
            }
        }
    }

    /// An `Int` for integers, a `Double` once a `Float` or `Double` was added, a `Decimal` once a
    /// `Decimal` was.
    var sum: Any {
        if hasDecimals { return decimals + Decimal(integers) + Decimal(floating) }
        if hasFloating { return floating + Double(integers) }
        return Int(integers)
    }

    /// The mean, nil for no numbers.
    var average: Any? {
        guard count > 0 else { return nil }
        if hasDecimals { return (decimals + Decimal(integers) + Decimal(floating)) / Decimal(count) }
        return (floating + Double(integers)) / Double(count)
    }
}
