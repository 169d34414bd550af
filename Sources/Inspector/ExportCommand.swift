import AsyncRealm

/// `asyncrealm export FILE [CLASS] --json | --csv`: every object, streamed.
enum ExportCommand {
    static let command = Inspector.Command(
        name: "export", summary: "every object of the file or of one class, as JSON or CSV, streamed",
        help: """
        USAGE: asyncrealm export FILE [CLASS] (--json | --csv) [--key-file PATH]

        Writes every object to stdout as it reads it, so a file of any size is exported in
        little memory.

          --json   with CLASS, a JSON array of its objects; without, a JSON object with one
                   array per class: {"Dog": [...], "Person": [...]}
          --csv    CSV (RFC 4180, CRLF line ends) of one CLASS: a header line of property names,
                   then one line per object

        Values: links are the linked object's primary key, or {"$key": N} (CSV: the same JSON)
        for a class without one, N being the object's key in the file; lists are JSON arrays;
        dates ISO 8601 in UTC; data base64; decimals, object ids and UUIDs strings; nil is null
        (CSV: an empty field); NaN and infinities are the strings "NaN", "Infinity", "-Infinity".
        LinkingObjects properties are computed, not stored, and not exported.

        """,
        run: run)

    static func run(_ arguments: [String]) throws -> ExitStatus {
        let parsed = try Arguments(arguments, valued: RealmFile.valuedOptions, flags: ["--json", "--csv"])
        let positionals = try parsed.positionals(1, 2, naming: "the realm file")
        guard parsed.has("--json") != parsed.has("--csv") else {
            throw InspectorFailure.usage("give one format: --json or --csv")
        }
        let realm = try RealmFile(path: positionals[0], arguments: parsed).openRealm()
        // Embedded objects are written inside the objects that hold them, not as classes.
        let classes = try positionals.count == 2 ? [RealmFile.objectSchema(positionals[1], in: realm)] : realm.schema.objectSchema.filter { !$0.isEmbedded }
        if parsed.has("--csv"), positionals.count == 1 {
            throw InspectorFailure.usage("CSV holds one class: name one of \(classes.map(\.className).joined(separator: ", "))")
        }
        let progress = ProgressBar("export")
        var export = Export(total: classes.reduce(0) { $0 + UInt64(realm.dynamicObjects($1.className).count) }, progress: progress)
        if parsed.has("--csv") {
            export.csv(realm, classes[0])
        } else if positionals.count == 2 {
            export.jsonArray(realm, classes[0])
            Output.standard.write("\n")
        } else {
            Output.standard.write("{")
            for (position, objectSchema) in classes.enumerated() {
                Output.standard.write((position == 0 ? "\n" : ",\n") + ValueText.jsonString(objectSchema.className) + ": ")
                export.jsonArray(realm, objectSchema)
            }
            Output.standard.write("\n}\n")
        }
        progress.finish()
        return .success
    }

    /// Objects written so far, for the progress bar.
    private struct Export {
        let total: UInt64
        let progress: ProgressBar
        var written: UInt64 = 0

        mutating func jsonArray(_ realm: Realm, _ objectSchema: ObjectSchema) {
            let rows = ObjectRows(objectSchema, schema: realm.schema)
            Output.standard.write("[")
            var first = true
            for object in realm.dynamicObjects(objectSchema.className) {
                Output.standard.write((first ? "\n" : ",\n") + rows.json(object))
                first = false
                advance()
            }
            Output.standard.write(first ? "]" : "\n]")
        }

        mutating func csv(_ realm: Realm, _ objectSchema: ObjectSchema) {
            let rows = ObjectRows(objectSchema, schema: realm.schema)
            Output.standard.write(rows.csvHeader)
            for object in realm.dynamicObjects(objectSchema.className) {
                Output.standard.write(rows.csv(object))
                advance()
            }
        }

        private mutating func advance() {
            written += 1
            if written % 1024 == 0 || written == total { progress.update(written, of: total) }
        }
    }
}
