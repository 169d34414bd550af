import StorageEngine

/// A predicate resolved against one object class: every key path found, every constant checked
/// against the property it meets. A comparison, a class reference already, is not boxed as the
/// other cases are.
enum BoundPredicate: Sendable {
    case constant(Bool)
    indirect case not(BoundPredicate)
    /// All the operands hold; a chain, as in `QueryNode`.
    case and([BoundPredicate])
    /// One of the operands holds; a chain, as in `QueryNode`.
    case or([BoundPredicate])
    case comparison(BoundComparison)

    /// `left AND right`, joined into the chain `left` already is: results filtered again and
    /// again nest no deeper.
    static func both(_ left: BoundPredicate, _ right: BoundPredicate) -> BoundPredicate {
        if case .and(let chain) = left { return .and(chain + [right]) }
        return .and([left, right])
    }
}

/// A class, not a struct: evaluation visits it once per object, and copying its key paths and
/// constants each time cost more than the comparison.
final class BoundComparison: Sendable {
    enum Side: Sendable {
        case path(BoundKeyPath, aggregate: Aggregate?)
        case constant([QueryScalar])
        case subqueryCount(BoundKeyPath, predicate: BoundPredicate)
    }

    enum Aggregate: String, Sendable {
        case count, size, min, max, sum, avg
        /// The kind of each value (see `ValueKinds`), compared with kinds as bits.
        case type
    }

    let quantifier: QueryComparison.Quantifier?
    let left: Side
    let op: QueryComparison.Operator
    let right: Side
    let caseInsensitive: Bool
    let diacriticInsensitive: Bool

    /// For a column of the object itself against constants, the common case, worked out once so
    /// that evaluating it per object matches no enums and copies no key paths: the column, its
    /// type and the constants.
    typealias Direct = (column: Int, type: PropertyType, constants: [QueryScalar])
    let direct: Direct?
    /// The test of a direct comparison on the stored row, if it has one (see `RowTest`).
    let rowTest: RowTest?
    /// Whether there is a `rowTest`: asked of every query, and asking the optional copies the
    /// test (and counts a reference to its string).
    let testsOnRow: Bool

    convenience init(quantifier: QueryComparison.Quantifier?, left: Side, op: QueryComparison.Operator, right: Side, caseInsensitive: Bool, diacriticInsensitive: Bool) {
        let direct: Direct? = if case .path(let path, nil) = left, path.hops.count == 1, case .value(let column) = path.hops[0],
                                 case .constant(let constants) = right {
            (column, path.property.type, constants)
        } else {
            nil
        }
        self.init(quantifier: quantifier, left: left, op: op, right: right, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive, direct: direct)
    }

    /// A comparison whose `direct` form the caller knows (a template's, see
    /// `QueryBinder.ResolvedComparison.DirectArgument`).
    init(quantifier: QueryComparison.Quantifier?, left: Side, op: QueryComparison.Operator, right: Side, caseInsensitive: Bool, diacriticInsensitive: Bool, direct: Direct?) {
        self.quantifier = quantifier
        self.left = left
        self.op = op
        self.right = right
        self.caseInsensitive = caseInsensitive
        self.diacriticInsensitive = diacriticInsensitive
        self.direct = direct
        rowTest = direct.flatMap { RowTest($0, op: op, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive) }
        testsOnRow = rowTest != nil
    }
}

extension QueryComparison.Operator {
    /// The operator with its sides swapped, for a constant on the left (`3 < age`,
    /// `'x' IN names`).
    var turnedAround: Self {
        switch self {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        case .in: .equal  // 'x' IN list: some element equals 'x'
        default: self
        }
    }
}
