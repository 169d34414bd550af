/// Parses the predicate language (NSPredicate's syntax as RealmSwift users write it, plus the
/// Realm Query Language additions) into a `QueryNode`. The grammar is in `Docs/Queries.md`.
///
/// Format arguments (`%@`, `%d`, `%f`, `$0`) are substituted while parsing, `%K` by the key
/// path it names; every error is a `RealmError` with code `invalidQuery` and the position.
struct QueryParser {
    private let tokens: [QueryToken]
    private var index = 0
    private let arguments: [QueryValue]
    /// The variable of the `SUBQUERY` being parsed, if any.
    private var variables: [String] = []
    /// How many parentheses, `NOT`s and subqueries enclose the current token.
    private var nesting = 0

    private init(tokens: [QueryToken], arguments: [QueryValue]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    static func parse(_ text: String, arguments: [QueryValue]) throws -> (QueryNode, QueryModifiers) {
        var parser = QueryParser(tokens: try QueryLexer.tokenize(text), arguments: arguments)
        let node = try parser.orExpression()
        let modifiers = try parser.modifiers()
        guard parser.current.kind == .end else {
            throw QueryError.at(parser.current.position, "unexpected \(describe(parser.current)) after the end of the predicate")
        }
        return (node, modifiers)
    }

    // MARK: Tokens

    private var current: QueryToken { tokens[index] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func isKeyword(_ word: String) -> Bool {
        if case .identifier(let name) = current.kind { return Self.equalsIgnoringASCIICase(name, uppercase: word) }
        return false
    }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    /// Whether `name` is `word` (upper-case ASCII) in any case, without making a string: the
    /// parser asks this of most identifiers for every keyword it may start.
    private static func equalsIgnoringASCIICase(_ name: String, uppercase word: String) -> Bool {
        var letters = name.utf8.makeIterator()
        for expected in word.utf8 {
            guard let byte = letters.next() else { return false }
            let upper = byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte
            guard upper == expected else { return false }
        }
        return letters.next() == nil
    }

    private mutating func expectSymbol(_ symbol: String, _ context: String) throws {
        guard isSymbol(symbol) else { throw QueryError.at(current.position, "expected '\(symbol)' \(context), found \(Self.describe(current))") }
        advance()
    }

    private static func describe(_ token: QueryToken) -> String {
        switch token.kind {
        case .identifier(let name): return "'\(name)'"
        case .escapedIdentifier(let name): return "'#\(name)'"
        case .aggregate(let name): return "'@\(name)'"
        case .variable(let name): return "'$\(name)'"
        case .integer(let value): return "'\(value)'"
        case .double(let value): return "'\(value)'"
        case .string(let value): return "the string '\(value)'"
        case .date: return "a date"
        case .uuid: return "a UUID"
        case .objectId: return "an ObjectId"
        case .data: return "base64 bytes"
        case .formatArgument(let specifier, _): return "'%\(specifier)'"
        case .symbol(let symbol): return "'\(symbol)'"
        case .end: return "the end of the predicate"
        }
    }

    private static let reserved: Set<String> = [
        "AND", "OR", "NOT", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "IN", "BETWEEN", "ANY", "SOME", "ALL", "NONE",
        "TRUEPREDICATE", "FALSEPREDICATE", "NIL", "NULL", "TRUE", "FALSE", "YES", "NO", "SUBQUERY", "SORT", "DISTINCT", "LIMIT",
    ]

    // MARK: Predicates

    private mutating func orExpression() throws -> QueryNode {
        var operands = [try andExpression()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            operands.append(try andExpression())
        }
        return .any(of: operands)
    }

    private mutating func andExpression() throws -> QueryNode {
        var operands = [try notExpression()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            operands.append(try notExpression())
        }
        return .all(of: operands)
    }

    private mutating func notExpression() throws -> QueryNode {
        if isKeyword("NOT") || isSymbol("!") {
            try enterNesting()
            defer { nesting -= 1 }
            advance()
            return .not(try notExpression())
        }
        return try primary()
    }

    /// Counts one more level of nesting, refusing past the limit: the parser recurses once per
    /// level, and a predicate string must not be able to overflow the stack.
    private mutating func enterNesting() throws {
        nesting += 1
        guard nesting <= QueryLimits.maximumNesting else {
            throw QueryError.at(current.position, "the predicate nests deeper than \(QueryLimits.maximumNesting) levels of parentheses, NOT and SUBQUERY")
        }
    }

    private mutating func primary() throws -> QueryNode {
        if isSymbol("(") {
            try enterNesting()
            defer { nesting -= 1 }
            advance()
            let node = try orExpression()
            try expectSymbol(")", "to close the parenthesis")
            return node
        }
        if isKeyword("TRUEPREDICATE") {
            advance()
            return .constant(true)
        }
        if isKeyword("FALSEPREDICATE") {
            advance()
            return .constant(false)
        }
        return .comparison(try comparison())
    }

    private mutating func comparison() throws -> QueryComparison {
        var quantifier: QueryComparison.Quantifier?
        if isKeyword("ANY") || isKeyword("SOME") {
            quantifier = .any
            advance()
        } else if isKeyword("ALL") {
            quantifier = .all
            advance()
        } else if isKeyword("NONE") {
            quantifier = .noElement
            advance()
        }
        let left = try operand()
        let position = current.position
        let op = try comparisonOperator()
        var caseInsensitive = false
        var diacriticInsensitive = false
        if isSymbol("[") {
            advance()
            guard case .identifier(let flags) = current.kind, flags.lowercased().allSatisfy({ $0 == "c" || $0 == "d" }) else {
                throw QueryError.at(current.position, "expected string options [c], [d] or [cd], found \(Self.describe(current))")
            }
            caseInsensitive = flags.lowercased().contains("c")
            diacriticInsensitive = flags.lowercased().contains("d")
            advance()
            try expectSymbol("]", "to close the string options")
        }
        let right: QueryOperand
        if op == .between {
            right = try betweenBounds()
        } else {
            right = try operand()
        }
        return QueryComparison(
            quantifier: quantifier, left: left, op: op, right: right,
            caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive, position: position)
    }

    /// The comparison operator (`<>` is `!=`, `=` is `==`).
    private mutating func comparisonOperator() throws -> QueryComparison.Operator {
        let token = current
        if case .symbol(let symbol) = token.kind {
            let op: QueryComparison.Operator? = switch symbol {
            case "==", "=": .equal
            case "!=", "<>": .notEqual
            case "<": .less
            case "<=": .lessOrEqual
            case ">": .greater
            case ">=": .greaterOrEqual
            default: nil
            }
            if let op {
                advance()
                return op
            }
        }
        if case .identifier(let word) = token.kind, let op = QueryComparison.Operator(rawValue: word.uppercased()),
           ![.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(op) {
            advance()
            return op
        }
        throw QueryError.at(token.position, "expected a comparison (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, IN or BETWEEN), found \(Self.describe(token))")
    }

    private mutating func betweenBounds() throws -> QueryOperand {
        let position = current.position
        let bounds = try operand()
        switch bounds {
        case .value(.list(let values), _) where values.count == 2:
            return bounds
        case .value(let value, _) where ParsedTemplates.argumentIndex(of: value) != nil:
            // `BETWEEN %@` given an array of the two bounds, as NSPredicate takes it: the
            // binder checks the array once a template is given it.
            return bounds
        default:
            throw QueryError.at(position, "BETWEEN takes two bounds: BETWEEN {low, high}, or BETWEEN %@ with an array of two")
        }
    }

    // MARK: Operands

    /// The constant a literal token stands for.
    private static func literal(_ kind: QueryToken.Kind) -> QueryValue? {
        switch kind {
        case .integer(let value): return .int(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .date(let value): return .date(value)
        case .uuid(let value): return .uuid(value)
        case .objectId(let value): return .objectId(value)
        case .data(let value): return .data(value)
        default: return nil
        }
    }

    private mutating func operand() throws -> QueryOperand {
        let token = current
        if let literal = Self.literal(token.kind) {
            advance()
            return .value(literal, position: token.position)
        }
        switch token.kind {
        case .formatArgument(let specifier, let number):
            advance()
            guard number < arguments.count else {
                throw QueryError.at(token.position, "'%\(specifier)' is argument \(number + 1), but only \(arguments.count) were given")
            }
            if specifier == "K" {
                guard case .string(let name) = arguments[number] else {
                    throw QueryError.at(token.position, "the argument for %K must be a key path string")
                }
                guard let components = KeyPathText.components(name) else {
                    throw QueryError.at(token.position, "the argument for %K: \(KeyPathText.malformed(name))")
                }
                return try keyPath(startingWith: components, at: token.position)
            }
            return .value(arguments[number], position: token.position)
        case .variable(let name):
            if let number = Int(name) {
                advance()
                guard number < arguments.count else {
                    throw QueryError.at(token.position, "'$\(number)' names argument \(number + 1), but only \(arguments.count) were given")
                }
                return .value(arguments[number], position: token.position)
            }
            guard variables.contains(name) else {
                throw QueryError.at(token.position, "'$\(name)' is not a subquery variable in scope")
            }
            advance()
            return try keyPath(startingWith: ["$" + name], at: token.position)
        case .aggregate("links"):
            // `@links.Person.dogs`: the objects linking to this one, a path of its own.
            advance()
            return try keyPath(startingWith: ["@links"], at: token.position)
        case .symbol("{"):
            advance()
            var items: [QueryValue] = []
            while !isSymbol("}") {
                if !items.isEmpty { try expectSymbol(",", "between the values of a list") }
                guard case .value(let value, _) = try operand() else {
                    throw QueryError.at(current.position, "a list {...} holds constants only")
                }
                items.append(value)
            }
            advance()
            return .value(.list(items), position: token.position)
        case .escapedIdentifier(let name):
            advance()
            return try keyPath(startingWith: [name], at: token.position)
        case .identifier(let name):
            switch name.uppercased() {
            case "NIL", "NULL":
                advance()
                return .value(.null, position: token.position)
            // NSPredicate's spellings too, as RealmSwift's predicates write them.
            case "TRUE", "YES":
                advance()
                return .value(.bool(true), position: token.position)
            case "FALSE", "NO":
                advance()
                return .value(.bool(false), position: token.position)
            case "SUBQUERY":
                return try subquery()
            default:
                guard !Self.reserved.contains(name.uppercased()) else {
                    throw QueryError.at(token.position, "expected a property or a value, found the keyword '\(name)'")
                }
                advance()
                return try keyPath(startingWith: [name], at: token.position)
            }
        default:
            throw QueryError.at(token.position, "expected a property or a value, found \(Self.describe(token))")
        }
    }

    /// The rest of a key path after its first components: `.name`, `.@count`, `.@max.age`, and
    /// a map's `['key']`, `.@allKeys` and `.@allValues` (kept as path components `[key]`,
    /// `@allKeys` and `@allValues`, which no property name can be).
    private mutating func keyPath(startingWith components: [String], at position: Int) throws -> QueryOperand {
        var path = components
        var aggregate: String?
        var aggregateProperty: [String] = []
        try mapSubscript(into: &path)
        while isSymbol(".") {
            advance()
            switch current.kind {
            case .identifier(let name) where aggregate == nil, .escapedIdentifier(let name) where aggregate == nil:
                path.append(name)
            case .identifier(let name), .escapedIdentifier(let name):
                aggregateProperty.append(name)
            case .aggregate(let name) where aggregate == nil && (name == "allKeys" || name == "allValues" || name == "links"):
                path.append("@" + name)
            case .aggregate(let name) where aggregate == nil:
                aggregate = name
            default:
                throw QueryError.at(current.position, "expected a property name after '.', found \(Self.describe(current))")
            }
            advance()
            if aggregate == nil { try mapSubscript(into: &path) }
        }
        if aggregate == nil, case .aggregate(let name) = current.kind {
            // `@count` written without a dot is accepted too: `dogs@count` is never meant otherwise.
            aggregate = name
            advance()
        }
        return .keyPath(path, aggregate: aggregate, aggregateProperty: aggregateProperty, position: position)
    }

    /// Subscripts after a path component, each appended to `path`: a map's (or a mixed
    /// dictionary's) `['key']` as `[key]`; a mixed list's `[2]`, `[FIRST]`, `[LAST]` and `[*]`
    /// (every element) as `[$2]`, `[$FIRST]`, `[$LAST]` and `[$*]`, which no key can be (keys do
    /// not start with `$`).
    private mutating func mapSubscript(into path: inout [String]) throws {
        while isSymbol("[") {
            advance()
            switch current.kind {
            case .string(let key): path.append("[" + key + "]")
            case .integer(let index) where index >= 0: path.append("[$\(index)]")
            case .symbol("*"): path.append("[$*]")
            case .identifier(let name) where ["first", "last"].contains(name.lowercased()): path.append("[$\(name.uppercased())]")
            default:
                throw QueryError.at(current.position, "a subscript is a string key (map['key']), a position, FIRST, LAST or * (value[0], value[*]), found \(Self.describe(current))")
            }
            advance()
            try expectSymbol("]", "to close the subscript")
        }
    }

    private mutating func subquery() throws -> QueryOperand {
        let position = current.position
        try enterNesting()
        defer { nesting -= 1 }
        advance()
        try expectSymbol("(", "after SUBQUERY")
        guard case .keyPath(let collection, nil, _, _) = try operand() else {
            throw QueryError.at(position, "SUBQUERY's first argument is the key path of a list")
        }
        try expectSymbol(",", "after SUBQUERY's collection")
        guard case .variable(let variable) = current.kind, Int(variable) == nil else {
            throw QueryError.at(current.position, "SUBQUERY's second argument is a variable such as $d")
        }
        advance()
        try expectSymbol(",", "after SUBQUERY's variable")
        variables.append(variable)
        let predicate = try orExpression()
        variables.removeLast()
        try expectSymbol(")", "to close SUBQUERY")
        guard isSymbol(".") else { throw QueryError.at(current.position, "a SUBQUERY is used through its count: SUBQUERY(...).@count") }
        advance()
        guard case .aggregate("count") = current.kind else {
            throw QueryError.at(current.position, "a SUBQUERY is used through its count: SUBQUERY(...).@count")
        }
        advance()
        return .subquery(collection: collection, variable: "$" + variable, predicate: predicate, position: position)
    }

    // MARK: SORT, DISTINCT, LIMIT

    private mutating func modifiers() throws -> QueryModifiers {
        var modifiers = QueryModifiers()
        while true {
            let position = current.position
            if isKeyword("SORT") {
                advance()
                try expectSymbol("(", "after SORT")
                var keys: [(keyPath: [String], ascending: Bool)] = []
                repeat {
                    if isSymbol(",") { advance() }
                    let path = try plainKeyPath("SORT")
                    var ascending = true
                    if isKeyword("ASC") || isKeyword("ASCENDING") {
                        advance()
                    } else if isKeyword("DESC") || isKeyword("DESCENDING") {
                        ascending = false
                        advance()
                    }
                    keys.append((path, ascending))
                } while isSymbol(",")
                try expectSymbol(")", "to close SORT")
                modifiers.steps.append((.sort(keys), position))
            } else if isKeyword("DISTINCT") {
                advance()
                try expectSymbol("(", "after DISTINCT")
                var paths: [[String]] = []
                repeat {
                    if isSymbol(",") { advance() }
                    paths.append(try plainKeyPath("DISTINCT"))
                } while isSymbol(",")
                try expectSymbol(")", "to close DISTINCT")
                modifiers.steps.append((.distinct(paths), position))
            } else if isKeyword("LIMIT") {
                advance()
                try expectSymbol("(", "after LIMIT")
                guard case .integer(let limit) = current.kind, limit >= 0 else {
                    throw QueryError.at(current.position, "LIMIT takes a number of objects, 0 or more")
                }
                advance()
                try expectSymbol(")", "to close LIMIT")
                modifiers.steps.append((.limit(Int(limit)), position))
            } else {
                return modifiers
            }
        }
    }

    private mutating func plainKeyPath(_ clause: String) throws -> [String] {
        let position = current.position
        guard case .keyPath(let path, nil, _, _) = try operand() else {
            throw QueryError.at(position, "\(clause) takes property names")
        }
        return path
    }
}
