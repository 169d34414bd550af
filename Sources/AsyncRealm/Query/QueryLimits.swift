import Foundation

/// The sizes a predicate may reach (`Docs/Limits.md`).
enum QueryLimits {
    /// How deeply a predicate may nest: parentheses that change the operator, `NOT`s, and
    /// subqueries, each one level. Chains of one operator do not nest however long they are.
    /// Deeper is a thrown `invalidQuery` (a programmer error for `where {}`), never a stack
    /// overflow: parsing, binding and evaluating recurse once per level.
    static let maximumNesting = 200
}
