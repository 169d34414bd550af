/// A key path written as text (`"owner.name"`), as `%K`, `sorted(byKeyPath:)`,
/// `distinct(by:)`, the aggregates and `changes(keyPaths:)` take it: property names joined by
/// dots, none of them empty.
enum KeyPathText {
    /// The property names of `text`, or nil when it is empty or has an empty name (`"."`,
    /// `"id."`, `".id"`, `"owner..name"`).
    static func components(_ text: String) -> [String]? {
        let names = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !names.contains(where: \.isEmpty) else { return nil }
        return names.map(String.init)
    }

    /// Why `text` is not a key path, for a message.
    static func malformed(_ text: String) -> String {
        text.isEmpty
            ? "the key path is empty; name a property, such as 'name' or 'owner.name'"
            : "'\(text)' is not a key path: it has an empty property name; write names joined by single dots, such as 'owner.name'"
    }

    /// A bound path's components as the query writes them: names joined by dots, a map key as
    /// `['key']` after its map.
    static func text(of components: [String]) -> String {
        var text = ""
        for component in components {
            if component.hasPrefix("[$"), component.hasSuffix("]") {
                // A mixed value's position, FIRST, LAST or * (no map key starts with `$`).
                text += "[" + component.dropFirst(2).dropLast() + "]"
            } else if component.hasPrefix("["), component.hasSuffix("]") {
                text += "['" + component.dropFirst().dropLast() + "']"
            } else {
                text += (text.isEmpty ? "" : ".") + component
            }
        }
        return text
    }
}
