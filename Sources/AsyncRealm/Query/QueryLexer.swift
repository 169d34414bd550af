import StorageEngine
import Foundation

/// One token of a predicate string, with the offset (in characters) where it starts.
struct QueryToken: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case identifier(String)
        /// `#any`: a name written with NSPredicate's `#`, so that a keyword (`ANY`, `IN`) can
        /// name a property; never read as a keyword.
        case escapedIdentifier(String)
        /// `@count`, `@size`, `@min`, `@max`, `@sum`, `@avg`; a map's `@allKeys`, `@allValues`;
        /// `@links`; `@type`.
        case aggregate(String)
        /// `$0`, `$1` (arguments) or `$name` (a subquery variable).
        case variable(String)
        case integer(Int64)
        case double(Double)
        case string(String)
        case date(Date)
        case uuid(UUID)
        case objectId(ObjectId)
        /// `B64"aGk="`: bytes, written in base64.
        case data(Data)
        /// `%@`, `%K`, `%d`, `%f`, numbered in order of appearance.
        case formatArgument(Character, index: Int)
        /// `==` `=` `!=` `<>` `<` `<=` `>` `>=` `&&` `||` `!` `(` `)` `{` `}` `[` `]` `,` `.`
        case symbol(String)
        case end
    }

    let kind: Kind
    let position: Int
}

/// Splits a predicate string into tokens; every error names the character position.
struct QueryLexer {
    private let characters: [Character]
    private var position = 0
    private var formatArguments = 0

    init(_ text: String) {
        characters = Array(text)
    }

    /// The tokens of predicate strings seen recently: a query run many times with different
    /// arguments is lexed once. Bounded; emptied when full.
    private static let recent = Locked<[String: [QueryToken]]>([:])
    private static let recentLimit = 256

    static func tokenize(_ text: String) throws -> [QueryToken] {
        if let tokens = recent.withLock({ $0[text] }) { return tokens }
        let tokens = try lex(text)
        recent.withLock { cache in
            if cache.count >= recentLimit { cache.removeAll(keepingCapacity: true) }
            cache[text] = tokens
        }
        return tokens
    }

    private static func lex(_ text: String) throws -> [QueryToken] {
        var lexer = QueryLexer(text)
        var tokens: [QueryToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private var current: Character? { position < characters.count ? characters[position] : nil }

    private func peek(_ offset: Int) -> Character? {
        position + offset < characters.count ? characters[position + offset] : nil
    }

    private mutating func next() throws -> QueryToken {
        while let character = current, character.isWhitespace { position += 1 }
        let start = position
        guard let character = current else { return QueryToken(kind: .end, position: start) }

        if character == "'" || character == "\"" {
            return QueryToken(kind: .string(try string(quote: character)), position: start)
        }
        if character.isNumber || (character == "." && peek(1)?.isNumber == true) {
            return QueryToken(kind: try number(), position: start)
        }
        if character == "-" || character == "+" {
            if let infinity = signedInfinity(negative: character == "-") { return QueryToken(kind: infinity, position: start) }
            if peek(1)?.isNumber == true || (peek(1) == "." && peek(2)?.isNumber == true) {
                position += 1
                // The sign is part of the number: -9223372036854775808 fits where its magnitude does not.
                let kind = try number(negative: character == "-")
                if case .date = kind { throw QueryError.at(start, "a date cannot be \(character == "-" ? "negative" : "signed")") }
                return QueryToken(kind: kind, position: start)
            }
        }
        if character == "B", peek(1) == "6", peek(2) == "4", peek(3) == "\"" {
            return QueryToken(kind: try base64(), position: start)
        }
        if character == "@" {
            position += 1
            let name = identifierCharacters()
            // A map's keys and values, named as Realm's query language names them (NSPredicate's
            // `@allKeys`, and the shorter `@keys` of Realm's own query language).
            if let mapOperator = ["allkeys": "allKeys", "keys": "allKeys", "allvalues": "allValues", "values": "allValues"][name.lowercased()] {
                return QueryToken(kind: .aggregate(mapOperator), position: start)
            }
            guard ["count", "size", "min", "max", "sum", "avg", "links", "type"].contains(name.lowercased()) else {
                throw QueryError.at(start, "unknown collection operator '@\(name)'; use @count, @size, @min, @max, @sum or @avg, a map's @allKeys or @allValues, @links.Class.property, or @type")
            }
            return QueryToken(kind: .aggregate(name.lowercased()), position: start)
        }
        if character == "$" {
            position += 1
            let name = identifierCharacters()
            guard !name.isEmpty else { throw QueryError.at(start, "'$' must be followed by an argument number or a variable name") }
            return QueryToken(kind: .variable(name), position: start)
        }
        if character == "%" {
            guard let specifier = peek(1), ["@", "K", "d", "f", "i"].contains(specifier) else {
                throw QueryError.at(start, "unknown format specifier; use %@, %K, %d or %f")
            }
            position += 2
            defer { formatArguments += 1 }
            return QueryToken(kind: .formatArgument(specifier, index: formatArguments), position: start)
        }
        if character == "T", peek(1)?.isNumber == true || (peek(1) == "-" && peek(2)?.isNumber == true) {
            return QueryToken(kind: .date(try timestamp()), position: start)
        }
        if character == "#", let next = peek(1), Self.startsIdentifier(next) {
            position += 1
            return QueryToken(kind: .escapedIdentifier(identifierCharacters()), position: start)
        }
        if Self.startsIdentifier(character) {
            let name = identifierCharacters()
            let lowered = name.lowercased()
            if (lowered == "uuid" || lowered == "oid"), current == "(" {
                return QueryToken(kind: try identifierLiteral(lowered, start: start), position: start)
            }
            if let number = Self.namedNumbers[lowered] { return QueryToken(kind: .double(number), position: start) }
            return QueryToken(kind: .identifier(name), position: start)
        }
        for symbol in ["==", "!=", "<>", "<=", ">=", "&&", "||", "=<", "=>"] where matches(symbol) {
            position += 2
            let normalized = symbol == "=<" ? "<=" : symbol == "=>" ? ">=" : symbol
            return QueryToken(kind: .symbol(normalized), position: start)
        }
        if "=<>!(){}[],.*".contains(character) {
            position += 1
            return QueryToken(kind: .symbol(String(character)), position: start)
        }
        throw QueryError.at(start, "unexpected character '\(character)'")
    }

    private func matches(_ symbol: String) -> Bool {
        for (offset, character) in symbol.enumerated() where peek(offset) != character { return false }
        return true
    }

    /// Whether `character` can start a property's name: a letter, `_`, or any character past
    /// ASCII, as in Realm's query language, where a Swift property named with an emoji or a
    /// symbol (`柱колоéнǢкƱаم👍`) is a key path like any other.
    private static func startsIdentifier(_ character: Character) -> Bool {
        character.isLetter || character == "_" || !character.isASCII
    }

    private mutating func identifierCharacters() -> String {
        var name = ""
        while let character = current, Self.startsIdentifier(character) || character.isNumber {
            name.append(character)
            position += 1
        }
        return name
    }

    private mutating func string(quote: Character) throws -> String {
        let start = position
        position += 1
        var text = ""
        while let character = current {
            position += 1
            if character == quote { return text }
            guard character == "\\" else {
                text.append(character)
                continue
            }
            guard let escaped = current else { break }
            position += 1
            switch escaped {
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "0": text.append("\0")
            case "\\", "'", "\"": text.append(escaped)
            case "u":
                let hex = String(characters[position..<min(position + 4, characters.count)])
                guard hex.count == 4, let scalar = UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init) else {
                    throw QueryError.at(position - 2, "'\\u' must be followed by four hexadecimal digits")
                }
                text.unicodeScalars.append(scalar)
                position += 4
            default: throw QueryError.at(position - 2, "unknown escape '\\\(escaped)' in a string")
            }
        }
        throw QueryError.at(start, "the string starting here is not closed with \(quote)")
    }

    private mutating func digits() -> String {
        var text = ""
        while let character = current, character.isASCII, character.isNumber {
            text.append(character)
            position += 1
        }
        return text
    }

    /// The numbers Realm's query language names, in any case: `inf`, `infinity` and `nan`.
    private static let namedNumbers: [String: Double] = ["inf": .infinity, "infinity": .infinity, "nan": .nan]

    /// `-inf`, `+infinity` and the like at the sign here, read; nil (nothing read) otherwise.
    private mutating func signedInfinity(negative: Bool) -> QueryToken.Kind? {
        var end = position + 1
        while end < characters.count, Self.startsIdentifier(characters[end]) || characters[end].isNumber { end += 1 }
        guard let infinity = Self.namedNumbers[String(characters[(position + 1)..<end]).lowercased()], infinity.isInfinite else { return nil }
        position = end
        return .double(negative ? -infinity : infinity)
    }

    /// `B64"..."`: the bytes the base64 text between the quotes stands for.
    private mutating func base64() throws -> QueryToken.Kind {
        let start = position
        position += 3
        let text = try string(quote: "\"")
        guard let data = Data(base64Encoded: text) else { throw QueryError.at(start, "'\(text)' is not base64") }
        return .data(data)
    }

    /// `0x1F`: an integer in hexadecimal, after its `0`; nil (nothing read) where none starts.
    private mutating func hexadecimal(negative: Bool, start: Int) throws -> QueryToken.Kind? {
        guard current == "x" || current == "X", let first = peek(1), first.isASCII && first.isHexDigit else { return nil }
        position += 1
        var text = ""
        while let character = current, character.isASCII && character.isHexDigit {
            text.append(character)
            position += 1
        }
        guard let value = Int64((negative ? "-" : "") + text, radix: 16) else {
            throw QueryError.at(start, "'0x\(text)' does not fit a 64-bit integer")
        }
        return .integer(value)
    }

    private mutating func number(negative: Bool = false) throws -> QueryToken.Kind {
        let start = position
        // A date: yyyy-mm-dd@hh:mm:ss[:nanoseconds] (or with a T between date and time).
        if let date = try dateLiteral() { return .date(date) }
        let integerDigits = digits()
        if integerDigits == "0", let hexadecimal = try hexadecimal(negative: negative, start: start) { return hexadecimal }
        var text = (negative ? "-" : "") + integerDigits
        var isDouble = false
        if current == ".", peek(1)?.isNumber == true || integerDigits.isEmpty == false {
            // "1.5", but not "a.b" key paths: a number is never followed by a key path.
            isDouble = true
            text.append(".")
            position += 1
            text += digits()
        }
        if current == "e" || current == "E" {
            isDouble = true
            text.append("e")
            position += 1
            if current == "-" || current == "+" {
                text.append(current!)
                position += 1
            }
            text += digits()
        }
        // `2.5f`, `3f`: a float, as Realm's query language writes one (compared as a double).
        if current == "f", !(peek(1).map { Self.startsIdentifier($0) || $0.isNumber } ?? false) {
            isDouble = true
            position += 1
        }
        if isDouble {
            guard let value = Double(text) else { throw QueryError.at(start, "'\(text)' is not a number") }
            return .double(value)
        }
        guard let value = Int64(text) else { throw QueryError.at(start, "'\(text)' does not fit a 64-bit integer") }
        return .integer(value)
    }

    private mutating func dateLiteral() throws -> Date? {
        let start = position
        // Cheap test first: a date starts with four digits and a dash.
        guard position + 4 < characters.count, characters[position + 4] == "-",
              characters[position..<(position + 4)].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let text = String(characters[position..<min(position + 40, characters.count)])
        let pattern = /^(\d{4})-(\d{1,2})-(\d{1,2})[@T](\d{1,2}):(\d{1,2}):(\d{1,2})(?::(\d{1,9}))?/
        guard let match = text.firstMatch(of: pattern) else { return nil }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        components.year = Int(match.1)
        components.month = Int(match.2)
        components.day = Int(match.3)
        components.hour = Int(match.4)
        components.minute = Int(match.5)
        components.second = Int(match.6)
        guard components.isValidDate, let date = components.date else {
            throw QueryError.at(start, "'\(match.0)' is not a valid date")
        }
        position += match.0.count
        let nanoseconds = match.7.map { Double($0)! } ?? 0
        return date.addingTimeInterval(nanoseconds / 1e9)
    }

    /// `T<seconds>:<nanoseconds>`.
    private mutating func timestamp() throws -> Date {
        let start = position
        position += 1
        var negative = false
        if current == "-" {
            negative = true
            position += 1
        }
        guard let seconds = Int64(digits()), current == ":" else {
            throw QueryError.at(start, "a timestamp is T<seconds>:<nanoseconds>, such as T1700000000:0")
        }
        position += 1
        guard let nanoseconds = Int64(digits()), nanoseconds < 1_000_000_000 else {
            throw QueryError.at(start, "a timestamp's nanoseconds must be below 1000000000")
        }
        let value = Double(seconds) + Double(nanoseconds) / 1e9
        return Date(timeIntervalSince1970: negative ? -value : value)
    }

    /// `uuid(...)` or `oid(...)`.
    private mutating func identifierLiteral(_ kind: String, start: Int) throws -> QueryToken.Kind {
        position += 1
        var text = ""
        while let character = current, character != ")" {
            text.append(character)
            position += 1
        }
        guard current == ")" else { throw QueryError.at(start, "\(kind)( is not closed with ')'") }
        position += 1
        if kind == "uuid" {
            guard let uuid = UUID(uuidString: text) else { throw QueryError.at(start, "'\(text)' is not a UUID") }
            return .uuid(uuid)
        }
        guard let id = try? ObjectId(string: text) else { throw QueryError.at(start, "'\(text)' is not an ObjectId (24 hexadecimal digits)") }
        return .objectId(id)
    }
}

/// A query error before it is given the `Realm.Error` form: a message and a position.
enum QueryError {
    static func at(_ position: Int, _ message: String) -> RealmError {
        RealmError(code: .invalidQuery, message: "\(message) (at character \(position))", position: position)
    }
}
