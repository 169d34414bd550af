import Foundation

/// RealmSwift's decimal type, here Foundation's `Decimal`: a `@Persisted var price: Decimal128`
/// is stored exactly as a `Decimal` property is (Realm's 128-bit decimal), and compares, adds
/// and prints as a `Decimal` does.
///
/// RealmSwift's `Decimal128(number:)` and `Decimal128(value:)` are here too. Its throwing
/// `Decimal128(string:)` is Foundation's failable `Decimal(string:)`: unwrap the result
/// instead of trying it. A literal with a fraction (`let price: Decimal128 = 19.99`) is made
/// by Foundation through a `Double` (19.98999999999999488), where RealmSwift rounds it to 15
/// digits: write `Decimal128(value: "19.99")` for the exact value.
public typealias Decimal128 = Decimal

extension Decimal {
    /// The decimal an `NSNumber` holds, as RealmSwift's `Decimal128(number:)`.
    ///
    /// - Parameter number: Any number: an integer exactly, a `Double` or `Float` as the decimal
    ///   Foundation converts it to.
    public init(number: NSNumber) {
        // `NSNumber.decimalValue` goes through a `Double`, which rounds integers past 2^53.
        if let integer = Int64(exactly: number) {
            self = Decimal(integer)
        } else {
            self = Decimal(number.doubleValue)
        }
    }

    /// A decimal made from a number or its text, as RealmSwift's `Decimal128(value:)`.
    ///
    /// - Important: A value that is neither a number nor a decimal's text stops with a message.
    ///
    /// - Parameter value: A `Decimal`, an integer, a `Float` or `Double`, an `NSNumber`, or a
    ///   `String` such as `"12.5"` or `"1e3"`.
    public init(value: Any) {
        switch value {
        case let decimal as Decimal: self = decimal
        case let integer as Int: self = Decimal(integer)
        case let integer as Int64: self = Decimal(integer)
        case let double as Double: self = Decimal(double)
        case let float as Float: self = Decimal(Double(float))
        case let number as NSNumber: self = Decimal(number: number)
        case let text as String:
            guard let parsed = Decimal(string: text) else { stop("'\(text)' is not a decimal number; pass digits such as \"12.5\" or \"1e3\"") }
            self = parsed
        default: stop("a \(type(of: value)) is not a decimal number; pass a number or its text")
        }
    }
}
