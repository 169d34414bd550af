import Foundation

/// Translates Foundation's `Predicate` (`#Predicate<Dog> { $0.age > 1 }`) into the query
/// engine's predicate, for the expressions that have a query form:
///
/// `&&` `||` `!`, `==` `!=` `<` `<=` `>` `>=`, key paths through to-one links (optional
/// chaining included: `$0.owner?.name`), constants and `nil`, `string.starts(with:)`, `string.contains(other)`, `array.contains(property)` (IN),
/// `list.contains(value)`, and `(a...b).contains(property)` / `(a..<b).contains(property)`.
///
/// Anything else (arithmetic, closures over sequences, nil-coalescing...) is a thrown
/// `invalidQuery` naming the expression.
struct PredicateTranslator {
    let realm: Realm

    func node(_ expression: Any) throws -> QueryNode {
        guard let translatable = expression as? TranslatablePredicate else { throw unsupported(expression) }
        return try translatable.queryNode(self)
    }

    func operand(_ expression: Any) throws -> QueryOperand {
        if let value = expression as? TranslatableValue {
            guard let constant = QueryValue.from(argument: value.constant) else {
                throw RealmError(code: .invalidQuery, message: "#Predicate compares with \(type(of: value.constant)), which has no query form", position: 0)
            }
            return .value(constant, position: 0)
        }
        guard let path = expression as? TranslatablePath else { throw unsupported(expression) }
        return .keyPath(try path.queryPath(self), aggregate: nil, aggregateProperty: [], position: 0)
    }

    func unsupported(_ expression: Any) -> RealmError {
        RealmError(code: .invalidQuery, message: "#Predicate expression \(type(of: expression)) has no query form; write it with the operators Docs/Queries.md lists", position: 0)
    }

    func comparison(_ left: Any, _ op: QueryComparison.Operator, _ right: Any, quantifier: QueryComparison.Quantifier? = nil) throws -> QueryNode {
        .comparison(QueryComparison(quantifier: quantifier, left: try operand(left), op: op, right: try operand(right), position: 0))
    }
}

/// A predicate expression with a query form.
protocol TranslatablePredicate {
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode
}

/// A key path expression: the names from the queried object.
protocol TranslatablePath {
    func queryPath(_ translator: PredicateTranslator) throws -> [String]
}

/// A constant expression.
protocol TranslatableValue {
    var constant: Any? { get }
}

extension PredicateExpressions.Variable: TranslatablePath {
    func queryPath(_ translator: PredicateTranslator) throws -> [String] { [] }
}

extension PredicateExpressions.KeyPath: TranslatablePath where Root.Output: Object {
    func queryPath(_ translator: PredicateTranslator) throws -> [String] {
        guard let root = root as? TranslatablePath else { throw translator.unsupported(root) }
        return try root.queryPath(translator) + [translator.realm.propertyName(of: keyPath, in: Root.Output.self)]
    }
}

/// `$0.owner?.name`: the link's path, then the transform's path from the linked object.
extension PredicateExpressions.OptionalFlatMap: TranslatablePath {
    func queryPath(_ translator: PredicateTranslator) throws -> [String] {
        guard let wrapped = wrapped as? TranslatablePath else { throw translator.unsupported(wrapped) }
        guard let transform = transform as? TranslatablePath else { throw translator.unsupported(transform) }
        return try wrapped.queryPath(translator) + transform.queryPath(translator)
    }
}

extension PredicateExpressions.Value: TranslatableValue {
    var constant: Any? { value }
}

extension PredicateExpressions.NilLiteral: TranslatableValue {
    var constant: Any? { nil as Any? }
}

extension PredicateExpressions.Conjunction: TranslatablePredicate {
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode { .both(try translator.node(lhs), try translator.node(rhs)) }
}

extension PredicateExpressions.Disjunction: TranslatablePredicate {
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode { .either(try translator.node(lhs), try translator.node(rhs)) }
}

extension PredicateExpressions.Negation: TranslatablePredicate {
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode { .not(try translator.node(wrapped)) }
}

extension PredicateExpressions.Equal: TranslatablePredicate {
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode { try translator.comparison(lhs, .equal, rhs) }
}

extension PredicateExpressions.NotEqual: TranslatablePredicate {
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode { try translator.comparison(lhs, .notEqual, rhs) }
}

extension PredicateExpressions.Comparison: TranslatablePredicate {
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode {
        let op: QueryComparison.Operator = switch self.op {
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        @unknown default: throw translator.unsupported(self)
        }
        return try translator.comparison(lhs, op, rhs)
    }
}

extension PredicateExpressions.SequenceStartsWith: TranslatablePredicate {
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode { try translator.comparison(base, .beginsWith, prefix) }
}

extension PredicateExpressions.CollectionContainsCollection: TranslatablePredicate {
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode { try translator.comparison(base, .contains, other) }
}

extension PredicateExpressions.SequenceContains: TranslatablePredicate {
    /// `[1, 2].contains($0.age)` is `age IN {1, 2}`; `$0.tags.contains("x")` is `ANY tags == 'x'`.
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode {
        if sequence is TranslatableValue { return try translator.comparison(element, .in, sequence) }
        return try translator.comparison(sequence, .equal, element, quantifier: .any)
    }
}

extension PredicateExpressions.RangeExpressionContains: TranslatablePredicate {
    func queryNode(_ translator: PredicateTranslator) throws -> QueryNode {
        if let range = range as? TranslatableRange {
            let property = try translator.operand(element)
            let (lower, upper) = (try translator.operand(range.lowerExpression), try translator.operand(range.upperExpression))
            guard case .value(let low, _) = lower, case .value(let high, _) = upper else { throw translator.unsupported(self) }
            if range.isClosed {
                return .comparison(QueryComparison(left: property, op: .between, right: .value(.list([low, high]), position: 0), position: 0))
            }
            return .both(
                .comparison(QueryComparison(left: property, op: .greaterOrEqual, right: lower, position: 0)),
                .comparison(QueryComparison(left: property, op: .less, right: upper, position: 0)))
        }
        throw translator.unsupported(range)
    }
}

/// `a...b` and `a..<b` in a predicate.
protocol TranslatableRange {
    var lowerExpression: Any { get }
    var upperExpression: Any { get }
    var isClosed: Bool { get }
}

extension PredicateExpressions.ClosedRange: TranslatableRange {
    var lowerExpression: Any { lower }
    var upperExpression: Any { upper }
    var isClosed: Bool { true }
}

extension PredicateExpressions.Range: TranslatableRange {
    var lowerExpression: Any { lower }
    var upperExpression: Any { upper }
    var isClosed: Bool { false }
}

extension Results {
    /// The objects for which Foundation's `predicate` holds:
    ///
    ///     try dogs.filter(#Predicate<Dog> { $0.age > 1 && $0.name.starts(with: "R") })
    ///
    /// - Throws: `RealmError` with code `invalidQuery` naming an expression that has no query
    ///   form (see `PredicateTranslator`).
    ///
    /// - Parameter predicate: A `#Predicate` over the results' class.
    /// - Returns: Live results.
    public func filter(_ predicate: Predicate<Element>) throws -> Results<Element> {
        handle.checkThread()
        let node = try PredicateTranslator(realm: handle).node(predicate.expression)
        return try filter(bound: try QueryBinder(schemas: handle.objectSchemas).bind(node, to: info.schema))
    }
}
