import StorageEngine

/// Resolves a parsed predicate against a class of a realm's schema.
struct QueryBinder {
    let schemas: [String: ObjectSchema]

    /// The modifiers' steps; sort and distinct keys must reach one value per object.
    func bind(_ modifiers: QueryModifiers, to schema: ObjectSchema) throws -> [BoundStep] {
        try modifiers.steps.map { step, position in
            func single(_ components: [String], _ clause: String) throws -> BoundKeyPath {
                let path = try keyPath(components, from: schema, variables: [:], position: position)
                guard !path.isCollection else {
                    throw QueryError.at(position, "\(clause) needs a property with one value per object; '\(path.text)' goes through a collection")
                }
                return path
            }
            switch step {
            case .sort(let keys): return .sort(try keys.map { (try single($0.keyPath, "SORT"), $0.ascending) })
            case .distinct(let paths): return .distinct(try paths.map { try single($0, "DISTINCT") })
            case .limit(let count): return .limit(count)
            }
        }
    }

    /// `node` resolved against `schema`. Refuses a predicate nested deeper than
    /// `QueryLimits.maximumNesting` (one built in code can be) before walking it.
    func bind(_ node: QueryNode, to schema: ObjectSchema, variables: [String: ObjectSchema] = [:]) throws -> BoundPredicate {
        let nesting = node.nesting(upTo: QueryLimits.maximumNesting)
        guard nesting <= QueryLimits.maximumNesting else {
            throw RealmError(code: .invalidQuery, message: "the predicate nests deeper than \(QueryLimits.maximumNesting) levels of NOT, AND inside OR, and subqueries; flatten it (a chain of one operator does not nest)", position: 0)
        }
        return try bindChecked(node, to: schema, variables: variables)
    }

    private func bindChecked(_ node: QueryNode, to schema: ObjectSchema, variables: [String: ObjectSchema]) throws -> BoundPredicate {
        switch node {
        case .constant(let value): return .constant(value)
        case .not(let inner): return .not(try bindChecked(inner, to: schema, variables: variables))
        case .and(let operands): return .and(try operands.map { try bindChecked($0, to: schema, variables: variables) })
        case .or(let operands): return .or(try operands.map { try bindChecked($0, to: schema, variables: variables) })
        case .comparison(let comparison): return .comparison(try bind(comparison, to: schema, variables: variables))
        }
    }

    private func bind(_ comparison: QueryComparison, to schema: ObjectSchema, variables: [String: ObjectSchema]) throws -> BoundComparison {
        try finish(try resolve(comparison, schema: schema, variables: variables))
    }

    /// A comparison with its key paths and subqueries resolved and its constants not yet
    /// checked: the part of binding that depends on the predicate's text alone, which a
    /// `BoundTemplate` keeps and finishes with each call's arguments. A class: finishing reads
    /// it where the template holds it instead of copying its key paths out first.
    final class ResolvedComparison {
        enum Operand {
            case side(BoundComparison.Side)
            case value(QueryValue, position: Int)
        }

        let quantifier: QueryComparison.Quantifier?
        let left: Operand
        let op: QueryComparison.Operator
        let right: Operand
        let caseInsensitive: Bool
        let diacriticInsensitive: Bool
        let position: Int
        let leftPosition: Int

        /// A column of the object itself compared with one argument (`name == %@`, `%@ < age`),
        /// the comparison a template is most often made for: what finishing it needs, found
        /// once, so that each call converts and checks its argument and copies no operands. A
        /// class, read where the template holds it.
        final class DirectArgument {
            let path: BoundKeyPath
            let column: Int
            /// The operator with the column on the left.
            let op: QueryComparison.Operator
            let argument: Int
            let position: Int
            /// The constants of the comparison made last, one argument's: made again in place for
            /// the next call once that comparison is gone (the usual case, a query run in a loop,
            /// where an array per call was an allocation, and destroying it and its value a
            /// twentieth of the query). Holds the last argument until then.
            var lastConstants: [QueryScalar] = [.null]
            /// The column's type, read once: `path.property` copies the property, counting a
            /// reference to each of its strings.
            let type: PropertyType
            /// `path` as the comparison's left side, made once.
            let side: BoundComparison.Side
            /// Whether `op` takes one value of the column's type as it is (see `takesAsIs`).
            private let takesOneValue: Bool

            init(path: BoundKeyPath, column: Int, op: QueryComparison.Operator, argument: Int, position: Int) {
                self.path = path
                self.column = column
                self.op = op
                self.argument = argument
                self.position = position
                type = path.property.type
                side = .path(path, aggregate: nil)
                takesOneValue = switch op {
                case .in, .between: false
                case .beginsWith, .endsWith, .contains, .like: type == .string || type == .data
                default: !(op.isOrdering && (type == .bool || type == .uuid))
                }
            }

            /// Whether `constant`, an argument's, is one `QueryBinder.check` passes for this
            /// column and operator and no conversion changes: a value of the column's type (any
            /// number for a number column, a string for data). Such an argument is used as it is,
            /// without the checks that copy the key path's property for every call. Anything
            /// else takes the general way, which converts or refuses it: nil, a number for a
            /// `Float` column (made a float), a value for an `AnyRealmValue` column or a link
            /// (whose objects' classes are checked), a value for `IN` or `BETWEEN`.
            func takesAsIs(_ constant: QueryScalar) -> Bool {
                guard takesOneValue else { return false }
                return switch (type, constant) {
                case (.int, .int), (.int, .double), (.int, .decimal),
                     (.double, .int), (.double, .double), (.double, .decimal),
                     (.decimal128, .int), (.decimal128, .double), (.decimal128, .decimal),
                     (.bool, .bool), (.string, .string), (.data, .data), (.data, .string),
                     (.date, .date), (.uuid, .uuid), (.objectId, .objectId): true
                default: false
                }
            }
        }

        let directArgument: DirectArgument?

        init(_ comparison: QueryComparison, left: Operand, right: Operand) {
            quantifier = comparison.quantifier
            self.left = left
            op = comparison.op
            self.right = right
            caseInsensitive = comparison.caseInsensitive
            diacriticInsensitive = comparison.diacriticInsensitive
            position = comparison.position
            leftPosition = comparison.left.position
            directArgument = Self.directArgument(left: left, op: comparison.op, right: right, quantifier: comparison.quantifier)
        }

        private static func directArgument(left: Operand, op: QueryComparison.Operator, right: Operand, quantifier: QueryComparison.Quantifier?) -> DirectArgument? {
            guard quantifier == nil else { return nil }
            let (pathOperand, valueOperand, turned): (Operand, Operand, Bool) = if case .side = left { (left, right, false) } else { (right, left, true) }
            guard case .side(let side) = pathOperand, case .path(let path, nil) = side, path.hops.count == 1,
                  case .value(let column) = path.hops[0],
                  case .value(let value, let position) = valueOperand, let argument = ParsedTemplates.argumentIndex(of: value) else { return nil }
            return DirectArgument(path: path, column: column, op: turned ? op.turnedAround : op, argument: argument, position: position)
        }
    }

    func resolve(_ comparison: QueryComparison, schema: ObjectSchema, variables: [String: ObjectSchema]) throws -> ResolvedComparison {
        func operand(_ operand: QueryOperand) throws -> ResolvedComparison.Operand {
            if case .value(let value, let position) = operand { return .value(value, position: position) }
            return .side(try side(operand, schema: schema, variables: variables))
        }
        return ResolvedComparison(comparison, left: try operand(comparison.left), right: try operand(comparison.right))
    }

    /// `comparison` with its constants converted and every check made; `arguments` take the
    /// place of the placeholders of a template's comparison (see `BoundTemplate`).
    func finish(_ comparison: ResolvedComparison, arguments: QueryArguments = .none) throws -> BoundComparison {
        if let direct = comparison.directArgument, direct.argument < arguments.count {
            let value = arguments[direct.argument]
            // A list argument (`age IN %@`) takes the general way.
            if case .list = value {} else {
                let constant = try scalar(value, position: direct.position)
                let asIs = direct.takesAsIs(constant)
                // In place when no comparison holds the array any more; copied when one does.
                direct.lastConstants[0] = consume constant
                if !asIs {
                    try check(direct.lastConstants, against: direct.path, op: direct.op, position: comparison.position)
                    let classes = Self.objectClasses(in: value)
                    try checkClasses(classes, against: direct.path, position: comparison.position)
                    if let converted = Self.converted(direct.lastConstants, for: direct.path, classes: classes) { direct.lastConstants = converted }
                }
                let constants = direct.lastConstants
                return BoundComparison(
                    quantifier: nil, left: direct.side, op: direct.op, right: .constant(constants),
                    caseInsensitive: comparison.caseInsensitive, diacriticInsensitive: comparison.diacriticInsensitive,
                    direct: (direct.column, direct.type, constants))
            }
        }
        // The classes of the objects given as constants, which a link must be of.
        var constantClasses: [String] = []
        func side(_ operand: ResolvedComparison.Operand) throws -> BoundComparison.Side {
            switch operand {
            case .side(let side): return side
            case .value(let value, let position):
                let value = arguments.isEmpty ? value : ParsedTemplates.substitute(arguments.array, into: value)
                constantClasses += Self.objectClasses(in: value)
                return try constant(value, position: position)
            }
        }
        var left = try side(comparison.left)
        var right = try side(comparison.right)
        var op = comparison.op
        // A constant on the left (`3 < age`, `'x' IN names`) is turned around.
        if case .constant = left, !isConstant(right) {
            swap(&left, &right)
            op = op.turnedAround
        }
        guard case .path(let path, let aggregate) = left else {
            if case .subqueryCount = left {
                try checkNumeric(right, op: op, what: "SUBQUERY(...).@count", position: comparison.position)
                return BoundComparison(quantifier: nil, left: left, op: op, right: right, caseInsensitive: false, diacriticInsensitive: false)
            }
            throw QueryError.at(comparison.position, "a comparison needs a property on at least one side")
        }
        if let quantifier = comparison.quantifier, !path.isCollection {
            throw QueryError.at(comparison.leftPosition, "\(quantifier.rawValue) needs a key path through a list or linking objects; '\(path.text)' is a single value")
        }
        if aggregate == .type {
            right = try kindConstants(right, op: op, position: comparison.position)
        } else if let aggregate {
            try checkAggregate(aggregate, of: path, right: right, op: op, position: comparison.position)
        } else if case .constant(let values) = right {
            try check(values, against: path, op: op, position: comparison.position)
            try checkClasses(constantClasses, against: path, position: comparison.position)
            if let converted = Self.converted(values, for: path, classes: constantClasses) { right = .constant(converted) }
        } else if case .path(let other, nil) = right, op != .in {
            guard compatible(path.property.type, other.property.type) else {
                throw QueryError.at(comparison.position, "cannot compare '\(path.text)' (\(path.property.type.rawValue)) with '\(other.text)' (\(other.property.type.rawValue))")
            }
        }
        return BoundComparison(
            quantifier: comparison.quantifier, left: left, op: op, right: right,
            caseInsensitive: comparison.caseInsensitive, diacriticInsensitive: comparison.diacriticInsensitive)
    }

    /// `values`, checked, in the form the property at `path` compares them in; nil where that is
    /// the form they have. Objects compared with an `AnyRealmValue` carry their `classes`;
    /// numbers compared with a `Float` are made floats.
    private static func converted(_ values: [QueryScalar], for path: BoundKeyPath, classes: [String]) -> [QueryScalar]? {
        switch path.property.type {
        case .any where !classes.isEmpty: mixedObjects(values, classes: classes)
        case .float: values.map(asFloat)
        default: nil
        }
    }

    /// A number compared with a `Float` property, made a float first, as Realm makes a constant
    /// the property's type: `level == 0.1` holds for a stored `Float(0.1)`, which as a double is
    /// 0.100000001, and `level > 0.1` does not.
    private static func asFloat(_ value: QueryScalar) -> QueryScalar {
        switch value {
        case .double(let number): .double(Double(Float(number)))
        case .int(let number): .double(Double(Float(number)))
        default: value
        }
    }

    private func isConstant(_ side: BoundComparison.Side) -> Bool {
        if case .constant = side { return true }
        return false
    }

    private func side(_ operand: QueryOperand, schema: ObjectSchema, variables: [String: ObjectSchema]) throws -> BoundComparison.Side {
        switch operand {
        case .value(let value, let position):
            return try constant(value, position: position)
        case .keyPath(let components, let aggregate, let aggregateProperty, let position):
            var path = try keyPath(components, from: schema, variables: variables, position: position)
            if case .allBacklinks? = path.hops.last, aggregate != BoundComparison.Aggregate.count.rawValue || !aggregateProperty.isEmpty {
                throw QueryError.at(position, "@links alone is only counted: @links.@count; follow one class's links with @links.Class.property")
            }
            guard let aggregate else { return .path(path, aggregate: nil) }
            guard let kind = BoundComparison.Aggregate(rawValue: aggregate) else {
                throw QueryError.at(position, "unknown collection operator '@\(aggregate)'")
            }
            if kind == .count || kind == .size { countElementsOfMixed(&path) }
            if kind == .type, !aggregateProperty.isEmpty {
                throw QueryError.at(position, "@type ends a key path: '\(path.text).@type'")
            }
            if !aggregateProperty.isEmpty {
                guard let target = path.objectClass.flatMap({ schemas[$0] }) else {
                    throw QueryError.at(position, "'@\(aggregate).\(aggregateProperty.joined(separator: "."))' needs '\(path.text)' to be a list of objects")
                }
                let tail = try keyPath(aggregateProperty, from: target, variables: [:], position: position)
                path.hops += tail.hops
                path.property = tail.property
                path.text += ".@\(aggregate)." + tail.text
            }
            return .path(path, aggregate: kind)
        case .subquery(var collection, var variable, var predicate, let position):
            if collection.isEmpty {
                // A type-safe subquery, `($0.dogs.age > 5).count`, names no list or variable.
                (collection, predicate) = try impliedSubquery(predicate, from: schema, variables: variables, position: position)
                variable = Self.impliedSubqueryVariable
            }
            let path = try keyPath(collection, from: schema, variables: variables, position: position)
            guard path.isCollection, let target = path.objectClass.flatMap({ schemas[$0] }) else {
                throw QueryError.at(position, "SUBQUERY needs a list of objects or linking objects; '\(path.text)' is not")
            }
            var inner = variables
            inner[variable] = target
            return .subqueryCount(path, predicate: try bind(predicate, to: target, variables: inner))
        }
    }

    /// A constant side: the value, or the items of a list (`IN {1, 2}`, `BETWEEN`).
    private func constant(_ value: QueryValue, position: Int) throws -> BoundComparison.Side {
        if case .list(let items) = value {
            return .constant(try items.map { try scalar($0, position: position) })
        }
        return .constant([try scalar(value, position: position)])
    }

    private func scalar(_ value: QueryValue, position: Int) throws -> QueryScalar {
        // A template's placeholder bound before its argument is given (one inside a subquery):
        // the template cannot be bound ahead, and the string is bound with its values instead.
        if case .argument(let index) = value {
            throw QueryError.at(position, "argument \(index + 1) is needed to bind this part of the predicate")
        }
        if case .object(let className, _) = value, schemas[className] == nil {
            throw QueryError.at(position, "the object given is of class '\(className)', which this realm does not have")
        }
        return QueryScalar(constant: value)
    }

    /// Resolves `components` from `schema`; a first component naming a subquery variable
    /// starts from the variable's class.
    func keyPath(_ components: [String], from schema: ObjectSchema, variables: [String: ObjectSchema], position: Int) throws -> BoundKeyPath {
        guard !components.isEmpty, !components.contains(where: \.isEmpty) else {
            throw QueryError.at(position, KeyPathText.malformed(components.joined(separator: ".")))
        }
        var current = schema
        var names = components
        if let first = names.first, first.hasPrefix("$") {
            guard let variableClass = variables[first] else { throw QueryError.at(position, "'\(first)' is not a subquery variable in scope") }
            current = variableClass
            names.removeFirst()
            guard !names.isEmpty else {
                throw QueryError.at(position, "compare a property of '\(first)', such as \(first).name")
            }
        }
        if names.count == 1, names[0].lowercased() == "self", names[0] != "self", let element = current["self"] {
            // The element of a collection of values (`ElementMatcher`), named in any case.
            let column = current.storedProperties.firstIndex { $0.name == element.name }!
            return BoundKeyPath(hops: [.value(column: column)], property: element, isCollection: false, text: names[0])
        }
        if names.count == 1, names[0].lowercased() == "self", current[names[0]] == nil {
            // `SELF`: the object itself, compared with objects (`SELF == %@`, `SELF IN %@`), as
            // NSPredicate and RealmSwift write it.
            let itself = Property(name: names[0], type: .object, isOptional: false, isArray: false, isPrimary: false, isIndexed: false,
                                  objectClassName: current.className, linkOriginPropertyName: nil)
            return BoundKeyPath(hops: [], property: itself, isCollection: false, text: names[0])
        }
        var hops: [BoundKeyPath.Hop] = []
        var isCollection = false
        var last: Property?
        // Names a step took with its own (a map's selector, `@links`'s class and property).
        var taken = 0
        for (index, name) in names.enumerated() {
            if taken > 0 {
                taken -= 1
                continue
            }
            if name == "@links", index == names.count - 1 {
                // `@links` alone: every link to the object, from any class (`@links.@count`).
                hops.append(.allBacklinks(allLinks(to: current)))
                isCollection = true
                last = Property(name: "@links", type: .linkingObjects, isOptional: false, isArray: false, isPrimary: false, isIndexed: false, objectClassName: nil, linkOriginPropertyName: nil)
                continue
            }
            if name == "@links" {
                let (backlinks, origin) = try linksHop(names.dropFirst(index + 1).prefix(2), to: current, position: position)
                hops.append(.backlinks(backlinks, origin: origin))
                isCollection = true
                last = backlinks
                current = origin
                taken = 2
                continue
            }
            if name.hasPrefix("[") || name.hasPrefix("@all") {
                throw QueryError.at(position, "'\(name)' follows '\(index == 0 ? current.className : names[index - 1])', which is not a map; only a map has keys and values")
            }
            guard let property = current[name] else {
                let known = current.properties.map(\.name).joined(separator: ", ")
                throw QueryError.at(position, "'\(current.className)' has no property '\(name)' (its properties: \(known))")
            }
            let isLast = index == names.count - 1
            last = property
            if property.type == .linkingObjects {
                guard let origin = property.objectClassName.flatMap({ schemas[$0] }) else {
                    throw QueryError.at(position, "'\(current.className).\(name)' links from a class this realm does not have")
                }
                hops.append(.backlinks(property, origin: origin))
                isCollection = true
                current = origin
                continue
            }
            let column = current.storedProperties.firstIndex { $0.name == name }!
            if property.isMap {
                let step = try mapStep(property, column: column, of: current, selector: index + 1 < names.count ? names[index + 1] : nil, position: position)
                hops.append(step.hop)
                taken = step.consumesSelector ? 1 : 0
                isCollection = isCollection || step.isCollection
                if let element = step.element { last = element }
                let isLast = index + (step.consumesSelector ? 1 : 0) == names.count - 1
                if let target = step.target { current = target } else if !isLast {
                    throw QueryError.at(position, "'\(current.className).\(name)' is a map of values; its values have no properties")
                }
                continue
            }
            if property.isCollection {
                let target = property.type == .object ? property.objectClassName.flatMap { schemas[$0] } : nil
                hops.append(.list(column: column, table: ListStore.tableName(forClass: current.className, property: property), target: target))
                isCollection = true
                if let target { current = target } else if !isLast {
                    throw QueryError.at(position, "'\(current.className).\(name)' is a list of values; it has no properties")
                }
                continue
            }
            if property.type == .object {
                guard let target = property.objectClassName.flatMap({ schemas[$0] }) else {
                    throw QueryError.at(position, "'\(current.className).\(name)' links to a class this realm does not have")
                }
                hops.append(.link(column: column, target: target))
                current = target
                continue
            }
            if property.type == .any, !isLast, names[index + 1].hasPrefix("[") {
                let steps = try mixedSteps(names[(index + 1)...], of: name, position: position)
                hops.append(.mixed(column: column, steps: steps))
                isCollection = isCollection || steps.contains(.all)
                taken = steps.count
                continue
            }
            guard isLast else {
                throw QueryError.at(position, "'\(current.className).\(name)' is \(property.type.rawValue); it has no properties")
            }
            hops.append(.value(column: column))
        }
        return BoundKeyPath(hops: hops, property: last!, isCollection: isCollection, text: KeyPathText.text(of: components))
    }

    /// `value.@count` (or `@size`) of a mixed value counts the elements of the list or
    /// dictionary it holds (none for any other value): the path takes every element.
    private func countElementsOfMixed(_ path: inout BoundKeyPath) {
        switch path.hops.last {
        case .value(let column)? where path.property.type == .any:
            path.hops[path.hops.count - 1] = .mixed(column: column, steps: [.all])
        case .mixed(let column, let steps)? where steps.last != .all:
            path.hops[path.hops.count - 1] = .mixed(column: column, steps: steps + [.all])
        default:
            break
        }
    }

    /// The subscripts after mixed property `name` (`['key']`, `[2]`, `[FIRST]`, `[LAST]`,
    /// `[*]`), which must end the key path.
    private func mixedSteps(_ components: ArraySlice<String>, of name: String, position: Int) throws -> [BoundKeyPath.MixedStep] {
        var steps: [BoundKeyPath.MixedStep] = []
        for component in components {
            guard component.hasPrefix("["), component.hasSuffix("]") else {
                throw QueryError.at(position, "subscripts end a key path: '\(name)' holds lists and dictionaries of values, which have no properties ('\(component)')")
            }
            let inside = String(component.dropFirst().dropLast())
            switch inside {
            case "$*": steps.append(.all)
            case "$FIRST": steps.append(.first)
            case "$LAST": steps.append(.last)
            default:
                if inside.hasPrefix("$"), let index = Int(inside.dropFirst()) { steps.append(.index(index)) } else { steps.append(.key(inside)) }
            }
        }
        return steps
    }

    /// The hop of map `property` and what follows it: `['key']` (one value), `@allKeys` (the
    /// keys, strings), or `@allValues`, a property of the values' objects or nothing (the
    /// values).
    private func mapStep(_ property: Property, column: Int, of schema: ObjectSchema, selector: String?, position: Int) throws
        -> (hop: BoundKeyPath.Hop, target: ObjectSchema?, element: Property?, isCollection: Bool, consumesSelector: Bool) {
        let table = ListStore.tableName(forClass: schema.className, property: property)
        let target = property.type == .object ? property.objectClassName.flatMap { schemas[$0] } : nil
        if let selector, selector.hasPrefix("["), selector.hasSuffix("]") {
            let key = String(selector.dropFirst().dropLast())
            if key.hasPrefix("$") {
                throw QueryError.at(position, "a map is subscripted by a string key: \(property.name)['key']; positions, FIRST, LAST and * subscript an AnyRealmValue")
            }
            return (.map(column: column, table: table, select: .key(key), target: target), target, nil, false, true)
        }
        if selector == "@allKeys" {
            let keys = Property(name: property.name, type: .string, isOptional: false, isArray: false, isPrimary: false,
                                isIndexed: false, objectClassName: nil, linkOriginPropertyName: nil)
            return (.map(column: column, table: table, select: .keys, target: nil), nil, keys, true, true)
        }
        return (.map(column: column, table: table, select: .values, target: target), target, nil, true, selector == "@allValues")
    }

    // MARK: Type checks

    private func compatible(_ a: PropertyType, _ b: PropertyType) -> Bool {
        let numeric: Set<PropertyType> = [.int, .float, .double, .decimal128]
        return a == b || (numeric.contains(a) && numeric.contains(b))
    }

    private func kind(of scalar: QueryScalar) -> String {
        switch scalar {
        case .null: return "nil"
        case .bool: return "a bool"
        case .int, .double, .decimal: return "a number"
        case .string: return "a string"
        case .data: return "data"
        case .date: return "a date"
        case .uuid: return "a UUID"
        case .objectId: return "an ObjectId"
        case .object, .mixedObject: return "an object"
        case .collection: return "a list or dictionary"
        }
    }

    /// The classes of the objects `value` holds: an object, or the objects of a list.
    private static func objectClasses(in value: QueryValue) -> [String] {
        switch value {
        case .object(let className, _): [className]
        case .list(let items): items.flatMap(objectClasses(in:))
        default: []
        }
    }

    /// `values` compared with an `AnyRealmValue`, its objects made `mixedObject`s with their
    /// classes (`classes`, in the order of the objects): a mixed value may hold an object of
    /// any class, and is equal only to that class's object of its key.
    private static func mixedObjects(_ values: [QueryScalar], classes: [String]) -> [QueryScalar] {
        var classes = classes.makeIterator()
        return values.map { value in
            guard case .object(let key) = value, let className = classes.next() else { return value }
            return .mixedObject(className: className, key: key)
        }
    }

    /// Refuses an object of another class than the link, list or `SELF` it is compared with,
    /// as RealmSwift does: row keys are per class, so such an object would match the one that
    /// has its key. (A mixed value holds objects of any class.)
    private func checkClasses(_ classes: [String], against path: BoundKeyPath, position: Int) throws {
        guard [.object, .linkingObjects].contains(path.property.type), let target = path.property.objectClassName,
              let other = classes.first(where: { $0 != target }) else { return }
        throw QueryError.at(position, "cannot compare '\(path.text)' (\(target)) with an object of class '\(other)'; compare it with a '\(target)'")
    }

    private func check(_ values: [QueryScalar], against path: BoundKeyPath, op: QueryComparison.Operator, position: Int) throws {
        let property = path.property
        switch op {
        case .beginsWith, .endsWith, .contains, .like:
            guard property.type == .string || property.type == .data || property.type == .any else {
                throw QueryError.at(position, "\(op.rawValue) needs a string or data property; '\(path.text)' is \(property.type.rawValue)")
            }
        case .in:
            break
        case .between:
            guard values.count == 2 else { throw QueryError.at(position, "BETWEEN takes two bounds: BETWEEN {low, high}, or BETWEEN %@ with an array of two") }
        default:
            if values.count != 1 {
                throw QueryError.at(position, "\(op.rawValue) compares with one value; use IN for a list")
            }
        }
        if op.isOrdering,
           [.bool, .object, .uuid].contains(property.type) || property.isCollection && property.type == .object {
            throw QueryError.at(position, "'\(path.text)' (\(property.type.rawValue)) has no order; compare it with == or !=")
        }
        for value in values {
            let fits: Bool = switch (property.type, value) {
            case (.any, _): true
            case (_, .null): property.isOptional || property.type == .object || path.isCollection || path.selectsMapKey
            case (.int, _), (.float, _), (.double, _), (.decimal128, _): value.isNumeric
            case (.bool, .bool), (.string, .string), (.data, .data), (.data, .string), (.date, .date), (.uuid, .uuid), (.objectId, .objectId): true
            case (.object, .object), (.linkingObjects, .object): true
            default: false
            }
            guard fits else {
                throw QueryError.at(position, "cannot compare '\(path.text)' (\(property.type.rawValue)\(property.isOptional ? "?" : "")) with \(kind(of: value))")
            }
        }
    }

    /// The variable an implied subquery names the list's elements by.
    static let impliedSubqueryVariable = "$element"

    /// The list of a type-safe subquery, `($0.dogs.age > 5 && $0.dogs.name == "Rex").count`,
    /// and its predicate over the list's elements: the first list every key path it compares
    /// goes through (`dogs`), and `$element.age > 5 AND $element.name == 'Rex'`.
    private func impliedSubquery(
        _ predicate: QueryNode, from schema: ObjectSchema, variables: [String: ObjectSchema], position: Int
    ) throws -> (collection: [String], predicate: QueryNode) {
        let paths = Self.keyPaths(in: predicate)
        guard let first = paths.first,
              let length = try (1..<first.count).first(where: { try keyPath(Array(first.prefix($0)), from: schema, variables: variables, position: position).isCollection }) else {
            throw QueryError.at(position, "a query's count compares properties of the objects of a list, such as ($0.dogs.age > 5).count")
        }
        let collection = Array(first.prefix(length))
        guard paths.allSatisfy({ $0.count > length && Array($0.prefix(length)) == collection }) else {
            throw QueryError.at(position, "every property a query's count compares must be reached through '\(collection.joined(separator: "."))'")
        }
        return (collection, Self.replacingPrefix(length, with: Self.impliedSubqueryVariable, in: predicate))
    }

    /// The key paths `node` compares, outside any subquery of its own.
    private static func keyPaths(in node: QueryNode) -> [[String]] {
        switch node {
        case .constant: return []
        case .not(let inner): return keyPaths(in: inner)
        case .and(let operands), .or(let operands): return operands.flatMap(keyPaths)
        case .comparison(let comparison):
            return [comparison.left, comparison.right].compactMap { if case .keyPath(let path, _, _, _) = $0 { path } else { nil } }
        }
    }

    /// `node` with the first `length` components of each key path it compares replaced by
    /// `variable`.
    private static func replacingPrefix(_ length: Int, with variable: String, in node: QueryNode) -> QueryNode {
        switch node {
        case .constant: return node
        case .not(let inner): return .not(replacingPrefix(length, with: variable, in: inner))
        case .and(let operands): return .and(operands.map { replacingPrefix(length, with: variable, in: $0) })
        case .or(let operands): return .or(operands.map { replacingPrefix(length, with: variable, in: $0) })
        case .comparison(var comparison):
            func replaced(_ operand: QueryOperand) -> QueryOperand {
                guard case .keyPath(let path, let aggregate, let property, let position) = operand else { return operand }
                return .keyPath([variable] + path.dropFirst(length), aggregate: aggregate, aggregateProperty: property, position: position)
            }
            comparison.left = replaced(comparison.left)
            comparison.right = replaced(comparison.right)
            return .comparison(comparison)
        }
    }

    /// Every link, list, set and map of every class that holds objects of `target`, as the
    /// backlinks `@links.Class.property` would follow, in the order of the classes' names.
    private func allLinks(to target: ObjectSchema) -> [(property: Property, origin: ObjectSchema)] {
        schemas.values.sorted { $0.className < $1.className }.flatMap { origin in
            origin.storedProperties.filter { $0.type == .object && $0.objectClassName == target.className }.map { link in
                (Self.backlinks(from: origin.className, through: link.name), origin)
            }
        }
    }

    /// The hop of `@links.Class.property` from objects of `target`: to the objects of `Class`
    /// whose link, list, set or map `property` holds them, as a `LinkingObjects` property would
    /// be.
    private func linksHop(_ names: ArraySlice<String>, to target: ObjectSchema, position: Int) throws -> (Property, ObjectSchema) {
        guard names.count == 2, let originName = names.first, let linkName = names.last else {
            throw QueryError.at(position, "@links names the class and the property that link here: @links.Person.dogs")
        }
        guard let origin = schemas[originName] else {
            throw QueryError.at(position, "@links.\(originName): this realm has no class '\(originName)'")
        }
        guard let link = origin[linkName], link.type == .object, link.objectClassName == target.className else {
            throw QueryError.at(position, "@links.\(originName).\(linkName): '\(originName)' has no link or collection of '\(target.className)' named '\(linkName)'")
        }
        return (Self.backlinks(from: originName, through: linkName), origin)
    }

    /// The linking-objects property `@links.originClass.linkName` stands for.
    private static func backlinks(from originClass: String, through linkName: String) -> Property {
        Property(
            name: "@links.\(originClass).\(linkName)", type: .linkingObjects, isOptional: false, isArray: false,
            isPrimary: false, isIndexed: false, objectClassName: originClass, linkOriginPropertyName: linkName)
    }

    /// The kinds `@type` is compared with (`'string'`, `{'int', 'null'}`), as bits.
    private func kindConstants(_ side: BoundComparison.Side, op: QueryComparison.Operator, position: Int) throws -> BoundComparison.Side {
        guard [.equal, .notEqual, .in].contains(op) else {
            throw QueryError.at(position, "@type is compared with ==, != or IN")
        }
        guard case .constant(let values) = side else {
            throw QueryError.at(position, "@type is compared with the name of a type, such as 'string'")
        }
        return .constant(try values.map { value in
            guard case .string(let name) = value, let kinds = ValueKinds.kinds(named: name) else {
                throw QueryError.at(position, "@type is compared with the name of a type, one of: \(ValueKinds.names); not \(value)")
            }
            return .int(kinds)
        })
    }

    private func checkNumeric(_ side: BoundComparison.Side, op: QueryComparison.Operator, what: String, position: Int) throws {
        guard case .constant(let values) = side, values.allSatisfy(\.isNumeric) else {
            throw QueryError.at(position, "\(what) is a number; compare it with numbers")
        }
    }

    private func checkAggregate(_ aggregate: BoundComparison.Aggregate, of path: BoundKeyPath, right: BoundComparison.Side, op: QueryComparison.Operator, position: Int) throws {
        guard path.isCollection || path.takesEveryNestedElement else {
            throw QueryError.at(position, "@\(aggregate.rawValue) needs a list or linking objects; '\(path.text)' is a single value")
        }
        switch aggregate {
        case .count, .size:
            try checkNumeric(right, op: op, what: "'\(path.text).@\(aggregate.rawValue)'", position: position)
        case .type:
            break
        case .min, .max, .sum, .avg:
            let numeric: Set<PropertyType> = [.int, .float, .double, .decimal128]
            guard numeric.contains(path.property.type) || (path.property.type == .date && aggregate != .sum && aggregate != .avg) else {
                throw QueryError.at(position, "@\(aggregate.rawValue) needs numbers; '\(path.text)' holds \(path.property.type.rawValue)")
            }
        }
    }
}
