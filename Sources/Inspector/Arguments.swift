/// A command's arguments: positional ones in order, options with values (`--limit 5` or
/// `--limit=5`, repeatable), and flags (`--json`). Anything after `--` is positional.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments` for a command that takes the options `valued` (each followed by a
    /// value) and the flags `flagNames`, both spelled with their leading `--`.
    ///
    /// - Throws: A usage failure for an option the command does not take, or one missing its value.
    init(_ arguments: [String], valued: Set<String>, flags flagNames: Set<String>) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                positionals += remaining
                break
            }
            guard argument.hasPrefix("--") || (argument.hasPrefix("-") && argument.count > 1 && Double(argument) == nil) else {
                positionals.append(argument)
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1)
            let name = String(parts[0])
            if valued.contains(name) {
                guard let value = parts.count == 2 ? String(parts[1]) : remaining.popFirst() else {
                    throw InspectorFailure.usage("\(name) needs a value")
                }
                values[name, default: []].append(value)
            } else if flagNames.contains(name), parts.count == 1 {
                flags.insert(name)
            } else {
                throw InspectorFailure.usage("unknown option '\(argument)'")
            }
        }
    }

    /// The values given for option `name`, in order.
    func values(of name: String) -> [String] { values[name] ?? [] }

    /// The last value given for option `name`.
    func value(of name: String) -> String? { values[name]?.last }

    /// Whether flag `name` was given.
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// The positional arguments, which must number between `minimum` and `maximum`.
    ///
    /// - Throws: A usage failure naming what is missing or extra.
    func positionals(_ minimum: Int, _ maximum: Int, naming names: String) throws -> [String] {
        guard positionals.count >= minimum else { throw InspectorFailure.usage("missing \(names)") }
        guard positionals.count <= maximum else {
            throw InspectorFailure.usage("unexpected argument '\(positionals[maximum])'")
        }
        return positionals
    }
}
