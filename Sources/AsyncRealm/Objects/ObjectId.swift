import Foundation
import Synchronization

/// Realm's 12-byte object identifier: a 4-byte timestamp (seconds, big-endian), 5 bytes random
/// per process, and a 3-byte counter, so ids generated in one process sort by creation.
public struct ObjectId: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 12 bytes, most significant first.
    public let bytes: [UInt8]

    /// The zero id.
    public init() {
        bytes = [UInt8](repeating: 0, count: 12)
    }

    /// An id from 24 hexadecimal digits.
    ///
    /// - Throws: `RealmError` with code `invalidValue` if `string` is not 24 hex digits.
    ///
    /// - Parameter string: 24 hexadecimal digits, either case.
    public init(string: String) throws {
        let digits = Array(string.utf8)
        guard digits.count == 24 else {
            throw RealmError(code: .invalidValue, message: "'\(string)' is not an ObjectId: it needs 24 hexadecimal digits, not \(digits.count)")
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(12)
        for index in stride(from: 0, to: 24, by: 2) {
            guard let high = ObjectId.hexValue(digits[index]), let low = ObjectId.hexValue(digits[index + 1]) else {
                throw RealmError(code: .invalidValue, message: "'\(string)' is not an ObjectId: it has a character that is not a hexadecimal digit")
            }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    init(bytes: [UInt8]) {
        require(bytes.count == 12, "an ObjectId has 12 bytes")
        self.bytes = bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static let processValue: [UInt8] = (0..<5).map { _ in UInt8.random(in: 0...255) }
    private static let counter = Atomic<UInt32>(UInt32.random(in: 0..<(1 << 24)))

    /// A new id, unique within this process and very likely across processes.
    ///
    /// - Returns: A fresh id: a timestamp, a random per-process value and a counter, as MongoDB's.
    public static func generate() -> ObjectId {
        let seconds = UInt32(truncatingIfNeeded: Int(Date().timeIntervalSince1970))
        let count = counter.add(1, ordering: .relaxed).newValue & 0xFF_FFFF
        var bytes = [UInt8]()
        bytes.reserveCapacity(12)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: seconds >> UInt32(shift))) }
        bytes.append(contentsOf: processValue)
        for shift in stride(from: 16, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
        return ObjectId(bytes: bytes)
    }

    /// An id of a given time, machine and process, as RealmSwift's: `timestamp`'s whole seconds,
    /// the low three bytes of `machineId` and the low two of `processId` (least significant
    /// first, as Realm lays them out), and this process's counter, so that ids made this way
    /// differ too.
    ///
    /// - Parameters:
    ///   - timestamp: The time the id records (`timestamp` reads it back, to the second).
    ///   - machineId: A machine identifier; its low 24 bits are kept.
    ///   - processId: A process identifier; its low 16 bits are kept.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let seconds = UInt32(truncatingIfNeeded: Int(timestamp.timeIntervalSince1970.rounded(.down)))
        let count = Self.counter.add(1, ordering: .relaxed).newValue & 0xFF_FFFF
        var bytes = [UInt8]()
        bytes.reserveCapacity(12)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: seconds >> UInt32(shift))) }
        for shift in stride(from: 0, through: 16, by: 8) { bytes.append(UInt8(truncatingIfNeeded: machineId >> shift)) }
        for shift in stride(from: 0, through: 8, by: 8) { bytes.append(UInt8(truncatingIfNeeded: processId >> shift)) }
        for shift in stride(from: 16, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
        self.init(bytes: bytes)
    }

    /// The creation time recorded in the id, to the second.
    public var timestamp: Date {
        let seconds = bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The 24 lowercase hexadecimal digits.
    public var stringValue: String {
        bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined()
    }

    public var description: String { stringValue }

    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

extension ObjectId: ExpressibleByStringLiteral {
    /// An id written as a literal of 24 hexadecimal digits, as in RealmSwift:
    /// `let id: ObjectId = "6058f12682b2fbb1f334ef1d"` or `ObjectId("6058f12682b2fbb1f334ef1d")`.
    ///
    /// - Important: A literal that is not 24 hexadecimal digits stops with a message; use
    ///   `ObjectId(string:)`, which throws, for text that is not a literal.
    ///
    /// - Parameter value: 24 hexadecimal digits.
    public init(stringLiteral value: String) {
        do {
            try self.init(string: value)
        } catch {
            stop("\(error); use ObjectId(string:), which throws, for ids that are not literals")
        }
    }
}
