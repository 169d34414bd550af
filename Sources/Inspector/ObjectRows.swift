import AsyncRealm

/// The objects of one class as rows of values: what `query` prints and `export` writes.
struct ObjectRows {
    let objectSchema: ObjectSchema
    /// The properties written: every stored one (not `LinkingObjects`, which the file
    /// computes), in declaration order.
    let properties: [Property]
    let values: ValueText

    init(_ objectSchema: ObjectSchema, schema: Schema) {
        self.objectSchema = objectSchema
        properties = objectSchema.properties.filter { $0.type != .linkingObjects }
        values = ValueText(schema: schema)
    }

    /// `object` as a JSON object, its properties in declaration order.
    func json(_ object: DynamicObject) -> String {
        "{" + properties.map { ValueText.jsonString($0.name) + ":" + values.json(object.plainValue(forKey: $0.name)) }.joined(separator: ",") + "}"
    }

    /// The CSV header line.
    var csvHeader: String { properties.map { values.csv($0.name) }.joined(separator: ",") + "\r\n" }

    /// `object` as a CSV line.
    func csv(_ object: DynamicObject) -> String {
        properties.map { values.csv(object.plainValue(forKey: $0.name)) }.joined(separator: ",") + "\r\n"
    }

    /// `object`'s values as text, one per property.
    func text(_ object: DynamicObject) -> [String] {
        properties.map { values.text(object.plainValue(forKey: $0.name)) }
    }
}
