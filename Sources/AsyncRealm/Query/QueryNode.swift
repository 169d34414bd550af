import Foundation

/// A predicate as parsed, before it meets an object type.
///
/// A chain of `AND`s (or of `OR`s) is one node holding all its operands, however it was
/// written or built: `a OR b OR c`, `(a OR b) OR c` and `q1 || q2 || q3` are each one `.or`
/// of three. Every walk of a predicate recurses only as deep as its nesting of different
/// operators, which `QueryLimits.maximumNesting` bounds, never as deep as a chain is long.
indirect enum QueryNode: Sendable {
    case constant(Bool)
    case not(QueryNode)
    /// All the operands hold (two or more).
    case and([QueryNode])
    /// One of the operands holds (two or more).
    case or([QueryNode])
    case comparison(QueryComparison)

    /// `left AND right`, joined into the chains either side already is.
    static func both(_ left: QueryNode, _ right: QueryNode) -> QueryNode { all(of: [left, right]) }

    /// `left OR right`, joined into the chains either side already is.
    static func either(_ left: QueryNode, _ right: QueryNode) -> QueryNode { any(of: [left, right]) }

    /// All of `operands` hold: one `.and`, with any `.and` among them spliced in.
    static func all(of operands: [QueryNode]) -> QueryNode {
        guard operands.count > 1 else { return operands.first ?? .constant(true) }
        return .and(chain(operands) { if case .and(let inner) = $0 { inner } else { nil } })
    }

    /// One of `operands` holds: one `.or`, with any `.or` among them spliced in.
    static func any(of operands: [QueryNode]) -> QueryNode {
        guard operands.count > 1 else { return operands.first ?? .constant(false) }
        return .or(chain(operands) { if case .or(let inner) = $0 { inner } else { nil } })
    }

    /// `operands` with those that are chains of the same operator (`links` gives their
    /// operands) replaced by their operands.
    private static func chain(_ operands: [QueryNode], _ links: (QueryNode) -> [QueryNode]?) -> [QueryNode] {
        var chain: [QueryNode] = []
        chain.reserveCapacity(operands.count)
        for operand in operands {
            if let inner = links(operand) { chain.append(contentsOf: inner) } else { chain.append(operand) }
        }
        return chain
    }

    /// How deeply the predicate nests (`NOT`, a chain inside a chain of the other operator, a
    /// subquery's predicate), found without recursing: a predicate built in code may nest
    /// deeper than a walk could recurse. Stops counting past `limit`.
    func nesting(upTo limit: Int) -> Int {
        var deepest = 0
        var pending: [(node: QueryNode, depth: Int)] = [(self, 0)]
        while let (node, depth) = pending.popLast() {
            deepest = Swift.max(deepest, depth)
            if deepest > limit { return deepest }
            switch node {
            case .constant: break
            case .not(let inner): pending.append((inner, depth + 1))
            case .and(let operands), .or(let operands): pending.append(contentsOf: operands.map { ($0, depth + 1) })
            case .comparison(let comparison):
                for case .subquery(_, _, let predicate, _) in [comparison.left, comparison.right] {
                    pending.append((predicate, depth + 1))
                }
            }
        }
        return deepest
    }
}

/// `left op right`, optionally quantified over a collection (`ANY dogs.age > 3`).
struct QueryComparison: Sendable {
    enum Operator: String, Sendable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS", like = "LIKE"
        case `in` = "IN", between = "BETWEEN"

        /// `<`, `<=`, `>`, `>=` and `BETWEEN`: the comparisons that need an order.
        var isOrdering: Bool {
            switch self {
            case .less, .lessOrEqual, .greater, .greaterOrEqual, .between: true
            default: false
            }
        }
    }

    enum Quantifier: String, Sendable {
        /// `NONE`: no element matches.
        case any = "ANY", all = "ALL", noElement = "NONE"
    }

    var quantifier: Quantifier?
    var left: QueryOperand
    var op: Operator
    var right: QueryOperand
    var caseInsensitive = false
    var diacriticInsensitive = false
    /// Where the operator is in the predicate string.
    var position: Int
}

/// One side of a comparison.
indirect enum QueryOperand: Sendable {
    /// `owner.name`, `dogs.@count`, `dogs.@max.age`; `aggregate` is the collection operator.
    case keyPath([String], aggregate: String?, aggregateProperty: [String], position: Int)
    case value(QueryValue, position: Int)
    /// `SUBQUERY(dogs, $d, $d.age > 5).@count`
    case subquery(collection: [String], variable: String, predicate: QueryNode, position: Int)

    var position: Int {
        switch self {
        case .keyPath(_, _, _, let position), .value(_, let position), .subquery(_, _, _, let position): return position
        }
    }
}

/// The `SORT`, `DISTINCT` and `LIMIT` clauses that may follow a predicate, in written order.
struct QueryModifiers: Sendable {
    enum Step: Sendable {
        case sort([(keyPath: [String], ascending: Bool)])
        case distinct([[String]])
        case limit(Int)
    }

    var steps: [(step: Step, position: Int)] = []
}
