/// A predicate string bound to one class with its arguments left open: the work `filter` does
/// for the string itself (parsing it, finding its key paths in the schema, resolving its
/// subqueries) done once per class and handle, so that a query run many times with different
/// values (`filter("name == %@", name)` in a loop) redoes only what depends on the values.
///
/// Each call's arguments are converted and checked against the property they meet by the same
/// code that binds a predicate afresh (`QueryBinder.finish`), so a call gets the result, or the
/// error, that binding its predicate would give.
///
/// A class: every call takes it out of the cache, and a struct counted a reference for each of
/// its fields there.
final class BoundTemplate {
    indirect enum Node {
        /// A part holding no argument, bound once.
        case bound(BoundPredicate)
        case not(Node)
        case and(Chain)
        case or(Chain)
        /// A comparison with an argument on a side, finished with each call's arguments.
        case comparison(QueryBinder.ResolvedComparison)
    }

    /// The operands of an AND or OR that holds an argument, and the predicates a call made of
    /// them last. The next call replaces those in place once the last call's results are gone
    /// (as in a query run in a loop): a new array for every call was an allocation, and
    /// freeing it a release of every operand. While those results live, the first operand
    /// replaced copies the array, as a new one was made before. The operands bound once
    /// stay as they are. The chain holds the last call's predicates, and so its arguments,
    /// until the next call, as `DirectArgument.lastConstants` holds its argument.
    final class Chain {
        let operands: [Node]
        private var made: [BoundPredicate]

        init(_ operands: [Node]) {
            self.operands = operands
            made = operands.map { if case .bound(let bound) = $0 { bound } else { .constant(false) } }
        }

        /// The operands' predicates with `arguments` in place of the placeholders.
        func predicates(with arguments: QueryArguments, binder: QueryBinder) throws -> [BoundPredicate] {
            for (position, operand) in operands.enumerated() {
                if case .bound = operand { continue }
                // The last call's part let go of first: finishing a comparison reuses its
                // constants' array in place when nothing holds it any more.
                made[position] = .constant(false)
                made[position] = try BoundTemplate.predicate(operand, with: arguments, binder: binder)
            }
            return made
        }
    }

    let predicate: Node
    let steps: [BoundStep]

    /// Binds the parsed `template` (with `ParsedTemplates`' placeholders for its arguments) to
    /// `schema`. Throws whatever binding meets, including a placeholder inside a subquery, which
    /// a template does not keep open: such a predicate is bound afresh on every call.
    init(_ template: (QueryNode, QueryModifiers), schema: ObjectSchema, binder: QueryBinder) throws {
        predicate = try Self.node(template.0, schema: schema, binder: binder)
        steps = try binder.bind(template.1, to: schema)
    }

    private static func node(_ node: QueryNode, schema: ObjectSchema, binder: QueryBinder) throws -> Node {
        switch node {
        case .constant(let value):
            return .bound(.constant(value))
        case .not(let inner):
            let inner = try self.node(inner, schema: schema, binder: binder)
            if case .bound(let bound) = inner { return .bound(.not(bound)) }
            return .not(inner)
        case .and(let operands):
            let nodes = try operands.map { try self.node($0, schema: schema, binder: binder) }
            if let bound = allBound(nodes) { return .bound(.and(bound)) }
            return .and(Chain(nodes))
        case .or(let operands):
            let nodes = try operands.map { try self.node($0, schema: schema, binder: binder) }
            if let bound = allBound(nodes) { return .bound(.or(bound)) }
            return .or(Chain(nodes))
        case .comparison(let comparison):
            let resolved = try binder.resolve(comparison, schema: schema, variables: [:])
            guard holdsPlaceholder(resolved.left) || holdsPlaceholder(resolved.right) else {
                return .bound(.comparison(try binder.finish(resolved)))
            }
            return .comparison(resolved)
        }
    }

    /// The predicates of `nodes` if none holds an argument.
    private static func allBound(_ nodes: [Node]) -> [BoundPredicate]? {
        var bound: [BoundPredicate] = []
        bound.reserveCapacity(nodes.count)
        for node in nodes {
            guard case .bound(let predicate) = node else { return nil }
            bound.append(predicate)
        }
        return bound
    }

    private static func holdsPlaceholder(_ operand: QueryBinder.ResolvedComparison.Operand) -> Bool {
        if case .value(let value, _) = operand { return ParsedTemplates.holdsPlaceholder(value) }
        return false
    }

    /// The predicate with `arguments` in place of the placeholders.
    func predicate(with arguments: QueryArguments, binder: QueryBinder) throws -> BoundPredicate {
        try Self.predicate(predicate, with: arguments, binder: binder)
    }

    fileprivate static func predicate(_ node: Node, with arguments: QueryArguments, binder: QueryBinder) throws -> BoundPredicate {
        switch node {
        case .bound(let bound):
            return bound
        case .not(let inner):
            return .not(try predicate(inner, with: arguments, binder: binder))
        case .and(let chain):
            return .and(try chain.predicates(with: arguments, binder: binder))
        case .or(let chain):
            return .or(try chain.predicates(with: arguments, binder: binder))
        case .comparison(let comparison):
            return .comparison(try binder.finish(comparison, arguments: arguments))
        }
    }
}

/// The templates of one class in one handle, by predicate string and argument count (see
/// `ClassInfo.filterTemplates`); nil for a string that has none (`%K`, an argument in a
/// subquery, or text that does not bind).
struct BoundTemplates {
    private var templates: [TemplateKey: BoundTemplate?] = [:]
    /// The last string asked for, its argument count and its template: a query run in a loop
    /// asks for the same string each time, and comparing it with the last (the same literal
    /// compares by its storage at once) costs less than hashing it. Three fields, not an
    /// optional tuple: binding the tuple to compare it copied the string and the template.
    private var lastFormat: String?
    private var lastArgumentCount = 0
    private var lastTemplate: BoundTemplate?
    private static let limit = 64

    /// The template of `format` with `argumentCount` arguments; `schema` is read only when the
    /// string is bound for the first time.
    mutating func template(for format: String, argumentCount: Int, schema: @autoclosure () -> ObjectSchema, binder: QueryBinder) -> BoundTemplate? {
        if lastArgumentCount == argumentCount, lastFormat == format { return lastTemplate }
        let key = TemplateKey(format: format, argumentCount: argumentCount)
        let template: BoundTemplate?
        if let known = templates[key] {
            template = known
        } else {
            template = try? ParsedTemplates.template(format, argumentCount: argumentCount).map {
                try BoundTemplate($0, schema: schema(), binder: binder)
            }
            if templates.count >= Self.limit { templates.removeAll(keepingCapacity: true) }
            templates.updateValue(template, forKey: key)
        }
        (lastFormat, lastArgumentCount, lastTemplate) = (format, argumentCount, template)
        return template
    }
}
