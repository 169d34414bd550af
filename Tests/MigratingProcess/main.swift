// A child process for the migration tests: migrations killed part way, and two processes
// migrating one file at once.
//
//     MigratingProcess seed <realm file> <count>
//         Creates a version-1 realm of <count> items: id i, name "item i", score i, note "n".
//     MigratingProcess migrate <realm file> <side file>
//         Opens the file with version 2: `name` renamed to `title`, `score` doubled by the
//         block, `added` new (default 7), `note` removed. The block appends "migrated" to the
//         side file as it starts; the process prints "opened" once the realm is open.
//     MigratingProcess verify <realm file> <count>
//         Prints "version 1 ok" or "version 2 ok" if the file holds the <count> items whole in
//         the version it has, or what is wrong; exits with status 1 then.
import AsyncRealm
import Foundation

enum Version1 {
    final class Item: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var name: String
        @Persisted var score: Int
        @Persisted var note: String
    }
}

enum Version2 {
    final class Item: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var title: String
        @Persisted var score: Int
        @Persisted var added: Int = 7
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

func version1(_ url: URL) -> Realm.Configuration {
    Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [Version1.Item.self])
}

func version2(_ url: URL, side: URL? = nil) -> Realm.Configuration {
    Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, _ in
        if let side, let handle = try? FileHandle(forWritingTo: side) {
            handle.seekToEndOfFile()
            handle.write(Data("migrated\n".utf8))
            try? handle.close()
        }
        migration.renameProperty(onType: "Item", from: "name", to: "title")
        migration.enumerateObjects(ofType: "Item") { oldObject, newObject in
            newObject!["score"] = (oldObject!["score"] as! Int) * 2
        }
    }, objectTypes: [Version2.Item.self])
}

/// Checks the items through counts and sums (every item), and 500 of them one by one.
func verify(_ url: URL, count: Int) throws -> String {
    let version = try schemaVersionAtURL(url)
    let sumOfIds = count * (count - 1) / 2
    let sample = stride(from: 0, to: count, by: max(1, count / 500))
    if version == 1 {
        let items = try Realm(configuration: version1(url)).objects(Version1.Item.self)
        guard items.count == count else { return "version 1 has \(items.count) items, not \(count)" }
        guard items.sum(ofProperty: "id") as Int == sumOfIds, items.sum(ofProperty: "score") as Int == sumOfIds,
              items.filter("note != 'n'").isEmpty else { return "version 1 items are damaged" }
        for id in sample {
            guard let item = items.realm?.object(ofType: Version1.Item.self, forPrimaryKey: id),
                  item.name == "item \(id)", item.score == id else { return "version 1 item \(id) is damaged" }
        }
    } else {
        let items = try Realm(configuration: version2(url)).objects(Version2.Item.self)
        guard items.count == count else { return "version 2 has \(items.count) items, not \(count)" }
        guard items.sum(ofProperty: "id") as Int == sumOfIds, items.sum(ofProperty: "score") as Int == 2 * sumOfIds,
              items.filter("added != 7").isEmpty else { return "version 2 items are not migrated" }
        for id in sample {
            guard let item = items.realm?.object(ofType: Version2.Item.self, forPrimaryKey: id),
                  item.title == "item \(id)", item.score == 2 * id else { return "version 2 item \(id) is not migrated" }
        }
    }
    return "version \(version) ok"
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("usage: MigratingProcess seed|migrate|verify <realm file> <count|side file>") }
let url = URL(fileURLWithPath: arguments[2])
do {
    switch arguments[1] {
    case "seed":
        guard let count = Int(arguments[3]) else { fail("seed needs a count") }
        let realm = try Realm(configuration: version1(url))
        try realm.write {
            for id in 0..<count {
                realm.create(Version1.Item.self, value: ["id": id, "name": "item \(id)", "score": id, "note": "n"])
            }
        }
    case "migrate":
        _ = try Realm(configuration: version2(url, side: URL(fileURLWithPath: arguments[3])))
        print("opened")
    case "verify":
        guard let count = Int(arguments[3]) else { fail("verify needs a count") }
        let outcome = try verify(url, count: count)
        print(outcome)
        if !outcome.hasSuffix("ok") { exit(1) }
    default:
        fail("unknown command \(arguments[1])")
    }
} catch {
    fail("\(error)")
}
