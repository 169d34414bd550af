import AsyncRealm

/// `asyncrealm query FILE CLASS [PREDICATE]`: the objects of a class that match a predicate.
enum QueryCommand {
    static let command = Inspector.Command(
        name: "query", summary: "the objects of a class matching a predicate, sorted, limited, as text or JSON",
        help: """
        USAGE: asyncrealm query FILE CLASS [PREDICATE] [--sort KEY]... [--limit N] [--json] [--key-file PATH]

        Prints the objects of CLASS that match PREDICATE (every object without one), in the
        predicate language of Results.filter (Docs/Queries.md): for example
        'age >= 18 AND name BEGINSWITH[c] "a"', or 'ANY dogs.name == "Rex"'.

        OPTIONS:
          --sort KEY    sort by KEY, a property or a key path through links ('owner.name');
                        -KEY sorts descending. Repeat for ties: --sort -age --sort name
          --limit N     print at most N objects
          --json        a JSON array of objects, streamed (links as primary keys, see --help export)

        Text output is a table, one object per line, then the count.

        """,
        run: run)

    static func run(_ arguments: [String]) throws -> ExitStatus {
        let parsed = try Arguments(arguments, valued: RealmFile.valuedOptions.union(["--sort", "--limit"]), flags: ["--json"])
        let positionals = try parsed.positionals(2, 3, naming: positionals(parsed.positionals.count))
        let realm = try RealmFile(path: positionals[0], arguments: parsed).openRealm()
        let objectSchema = try RealmFile.objectSchema(positionals[1], in: realm)
        var results = realm.dynamicObjects(objectSchema.className)
        if positionals.count == 3 {
            do {
                results = try results.filter(try RealmPredicate(positionals[2]))
            } catch let error as RealmError {
                throw InspectorFailure.usage("the predicate does not apply to \(objectSchema.className): \(error.message)")
            }
        }
        let sorts = try parsed.values(of: "--sort").map { try sortDescriptor($0, from: objectSchema, in: realm.schema) }
        if !sorts.isEmpty { results = results.sorted(by: sorts) }
        let limit = try parsed.value(of: "--limit").map(limitValue) ?? Int.max
        let rows = ObjectRows(objectSchema, schema: realm.schema)
        if parsed.has("--json") {
            writeJSON(results, limit: limit, rows: rows)
        } else {
            writeTable(results, limit: limit, rows: rows)
        }
        return .success
    }

    private static func positionals(_ given: Int) -> String {
        given == 0 ? "the realm file and the class" : "the class to query"
    }

    static func limitValue(_ text: String) throws -> Int {
        guard let limit = Int(text), limit >= 0 else { throw InspectorFailure.usage("--limit needs a count, 0 or more, not '\(text)'") }
        return limit
    }

    /// The sort `key` asks for (`-key`: descending), its key path checked against the schema.
    ///
    /// - Throws: A usage failure naming the property that is not there or cannot be sorted by.
    static func sortDescriptor(_ key: String, from objectSchema: ObjectSchema, in schema: Schema) throws -> SortDescriptor {
        let descending = key.hasPrefix("-")
        let path = descending ? String(key.dropFirst()) : key
        var current = objectSchema
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (position, name) in components.enumerated() {
            guard let property = current[name] else {
                throw InspectorFailure.usage("cannot sort by '\(path)': \(current.className) has no property '\(name)'")
            }
            let isLast = position == components.count - 1
            if property.isCollection || property.type == .linkingObjects || (isLast && property.type == .object) {
                throw InspectorFailure.usage("cannot sort by '\(path)': '\(name)' is \(property.isCollection || property.type == .linkingObjects ? "a collection" : "a link"); sort by one of its properties")
            }
            if !isLast {
                guard property.type == .object, let next = property.objectClassName.flatMap({ schema[$0] }) else {
                    throw InspectorFailure.usage("cannot sort by '\(path)': '\(name)' is not a link")
                }
                current = next
            }
        }
        return SortDescriptor(keyPath: path, ascending: !descending)
    }

    private static func writeJSON(_ results: Results<DynamicObject>, limit: Int, rows: ObjectRows) {
        Output.standard.write("[")
        for (position, object) in results.prefix(limit).enumerated() {
            Output.standard.write((position == 0 ? "\n" : ",\n") + rows.json(object))
        }
        Output.standard.write("\n]\n")
    }

    /// A table whose column widths fit the first rows; later, wider values push their line out.
    private static func writeTable(_ results: Results<DynamicObject>, limit: Int, rows: ObjectRows) {
        let header = rows.properties.map(\.name)
        var pending: [[String]] = []
        var widths = header.map(\.count)
        var printed = 0
        func flush() {
            for row in pending {
                let cells = zip(row, widths).map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }
                Output.standard.write(cells.joined(separator: "  ").trimmingSuffix() + "\n")
            }
            pending.removeAll()
        }
        pending.append(header)
        pending.append(widths.map { String(repeating: "-", count: $0) })
        for object in results.prefix(limit) {
            let row = rows.text(object).map { $0.replacingOccurrences(of: "\n", with: "\\n") }
            printed += 1
            if printed <= 100 {
                widths = zip(widths, row).map { max($0, $1.count) }
                pending.append(row)
                if printed == 100 { pending[1] = widths.map { String(repeating: "-", count: $0) }; flush() }
            } else {
                pending.append(row)
                flush()
            }
        }
        if printed < 100 { pending[1] = widths.map { String(repeating: "-", count: $0) } }
        flush()
        let total = results.count
        Output.standard.write("(\(printed) object\(printed == 1 ? "" : "s")\(printed < total ? " of \(total)" : ""))\n")
    }
}

extension String {
    func trimmingSuffix() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
