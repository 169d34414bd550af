// A child process for the two-process tests.
//
//     CounterProcess <realm file> <increments>
//
// Increments the counter object (primary key 1) `increments` times, one `asyncWrite` each,
// while a change stream on the counter watches for values this process did not write, and
// prints one line: `final=<value seen last> sawOther=<commits of the other process seen>`.
import AsyncRealm
import Foundation

final class Counter: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Int
}

actor Incrementer {
    func run(path: String, increments: Int) async throws -> String {
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Counter.self])
        let realm = try await Realm(configuration: configuration, actor: self)
        var written = Set<Int>()
        let counter = try await realm.asyncWrite { realm.create(Counter.self, value: ["id": 1], update: .modified) }
        var stream = counter.changes(keyPaths: ["value"]).makeAsyncIterator()
        var sawOther = 0
        for _ in 0..<increments {
            let value = try await realm.asyncWrite {
                counter.value += 1
                return counter.value
            }
            written.insert(value)
        }
        // Let the other process finish too, watching its commits arrive.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard case .change(_, let properties)? = await stream.next() else { break }
            if let value = properties.first?.newValue as? Int {
                if !written.contains(value) { sawOther += 1 }
                if value >= 2 * increments { break }
            }
        }
        return "final=\(counter.value) sawOther=\(sawOther)"
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let increments = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: CounterProcess <realm file> <increments>\n".utf8))
    exit(2)
}
do {
    let line = try await Incrementer().run(path: arguments[1], increments: increments)
    print(line)
} catch {
    FileHandle.standardError.write(Data("CounterProcess failed: \(error)\n".utf8))
    exit(1)
}
