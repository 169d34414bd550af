import StorageEngine

/// Predicate strings parsed once with placeholders for their arguments, then given each call's
/// arguments: a query run many times with different values (`filter("name == %@", name)` in a
/// loop) is parsed once, and each call only substitutes its values into the parsed tree.
///
/// The template is parsed with each argument replaced by a placeholder (`QueryValue.argument`)
/// the parser treats like any constant; substituting puts the real value where each
/// placeholder ended up, inside lists and subqueries too. A string
/// with `%K`, whose argument changes the tree itself, is parsed with its arguments each time.
enum ParsedTemplates {
    private static let recent = Locked<[TemplateKey: (QueryNode, QueryModifiers)]>([:])
    private static let recentLimit = 256

    /// `format` parsed with `arguments`, as `QueryParser.parse` gives it.
    static func parse(_ format: String, arguments: [QueryValue]) throws -> (QueryNode, QueryModifiers) {
        guard let template = try template(format, argumentCount: arguments.count) else {
            return try QueryParser.parse(format, arguments: arguments)
        }
        return (substitute(arguments, into: template.0), template.1)
    }

    /// `format` parsed with placeholders for `argumentCount` arguments; nil if it holds `%K`.
    static func template(_ format: String, argumentCount: Int) throws -> (QueryNode, QueryModifiers)? {
        guard !namesKeyPathArgument(format) else { return nil }
        let key = TemplateKey(format: format, argumentCount: argumentCount)
        if let cached = recent.withLock({ $0[key] }) { return cached }
        let placeholders = (0..<argumentCount).map(QueryValue.argument)
        let template = try QueryParser.parse(format, arguments: placeholders)
        recent.withLock { cache in
            if cache.count >= recentLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = template
        }
        return template
    }

    /// Whether `value` holds a placeholder.
    static func holdsPlaceholder(_ value: QueryValue) -> Bool {
        switch value {
        case .argument: return true
        case .list(let items): return items.contains(where: holdsPlaceholder)
        default: return false
        }
    }

    /// The index of the argument `value` stands for, if it is a placeholder itself (not a list
    /// holding some).
    static func argumentIndex(of value: QueryValue) -> Int? {
        if case .argument(let index) = value { return index }
        return nil
    }

    /// Whether `format` holds `%K` (byte by byte: Foundation's `contains` is many times slower).
    private static func namesKeyPathArgument(_ format: String) -> Bool {
        var previous: UInt8 = 0
        for byte in format.utf8 {
            if previous == UInt8(ascii: "%") && byte == UInt8(ascii: "K") { return true }
            previous = byte
        }
        return false
    }

    private static func substitute(_ arguments: [QueryValue], into node: QueryNode) -> QueryNode {
        switch node {
        case .constant: return node
        case .not(let inner): return .not(substitute(arguments, into: inner))
        case .and(let operands): return .and(operands.map { substitute(arguments, into: $0) })
        case .or(let operands): return .or(operands.map { substitute(arguments, into: $0) })
        case .comparison(var comparison):
            comparison.left = substitute(arguments, into: comparison.left)
            comparison.right = substitute(arguments, into: comparison.right)
            return .comparison(comparison)
        }
    }

    private static func substitute(_ arguments: [QueryValue], into operand: QueryOperand) -> QueryOperand {
        switch operand {
        case .keyPath: return operand
        case .value(let value, let position): return .value(substitute(arguments, into: value), position: position)
        case .subquery(let collection, let variable, let predicate, let position):
            return .subquery(collection: collection, variable: variable, predicate: substitute(arguments, into: predicate), position: position)
        }
    }

    /// `value` with each placeholder replaced by its argument.
    static func substitute(_ arguments: [QueryValue], into value: QueryValue) -> QueryValue {
        if let index = argumentIndex(of: value) { return arguments[index] }
        if case .list(let items) = value { return .list(items.map { substitute(arguments, into: $0) }) }
        return value
    }
}

/// What a template is kept by: the predicate string and how many arguments it is given (the
/// same string with another count parses differently, or not at all).
struct TemplateKey: Hashable {
    let format: String
    let argumentCount: Int
}
