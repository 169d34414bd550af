// A child process for the two-process tests.
//
//     CounterProcess <realm file> <increments>
//
// Waits for the other process to start, then increments the counter object (primary key 1)
// `increments` times, one `asyncWrite` each,
// while a task with a realm of its own follows the counter's change stream until it reaches
// twice `increments` (the other process's share too). Prints one line:
// `final=<value> sawOther=<stream elements showing a value the other process wrote>`.
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
        let counter = try await realm.asyncWrite {
            realm.object(ofType: Counter.self, forPrimaryKey: 1) ?? realm.create(Counter.self, value: ["id": 1, "value": 0])
        }
        // Start together: both processes count themselves in (object 2), and each waits,
        // through a change stream, until the other has.
        let ready = try await realm.asyncWrite {
            let ready = realm.object(ofType: Counter.self, forPrimaryKey: 2) ?? realm.create(Counter.self, value: ["id": 2, "value": 0])
            ready.value += 1
            return ready
        }
        if ready.value < 2 {
            for await change in ready.changes {
                if case .change = change, ready.value >= 2 { break }
            }
        }
        let target = 2 * increments
        let observer = Task { () -> [Int] in
            let realm = try await Realm.open(configuration: configuration)
            guard let counter = realm.object(ofType: Counter.self, forPrimaryKey: 1) else { return [] }
            var seen: [Int] = []
            for await change in counter.changes(keyPaths: ["value"]) {
                guard case .change(_, let properties) = change, let value = properties.first?.newValue as? Int else { continue }
                seen.append(value)
                if value >= target { break }
            }
            return seen
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            observer.cancel()
        }
        var written = Set<Int>()
        for _ in 0..<increments {
            let value = try await realm.asyncWrite {
                counter.value += 1
                return counter.value
            }
            written.insert(value)
        }
        let seen = try await observer.value
        watchdog.cancel()
        let sawOther = seen.filter { !written.contains($0) }.count
        return "final=\(seen.last ?? counter.value) sawOther=\(sawOther)"
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
