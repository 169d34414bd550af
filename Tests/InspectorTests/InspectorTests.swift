import AsyncRealm
import Foundation
import Testing
import TestSupport

final class Owner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var pets: List<Pet>
    @Persisted var born: Date?
    @Persisted var score: Double
}

final class Pet: Object {
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int
    @Persisted var owner: Owner?
    @Persisted var tags: List<String>
    @Persisted var photo: Data?
    @Persisted var price: Decimal
    @Persisted(originProperty: "pets") var owners: LinkingObjects<Owner>
}

final class Kennel: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var tags: MutableSet<String>
    @Persisted var capacity: Map<String, Int>
    @Persisted var gate: Gate?
}

final class Gate: EmbeddedObject {
    @Persisted var width: Int
    @Persisted var colour: String
}

@Suite("The asyncrealm inspector")
struct InspectorTests {
    let directory = TemporaryDirectory()
    var path: String { directory.url.appendingPathComponent("pets.realm").path }

    /// Ada (id 1) with Rex and "Bo, \"the\" dog", Bob (id 2) with none, and a stray pet.
    func makeFile(key: Data? = nil, schemaVersion: UInt64 = 3) throws {
        let configuration = Realm.Configuration(
            fileURL: URL(fileURLWithPath: path), encryptionKey: key, schemaVersion: schemaVersion, objectTypes: [Owner.self, Pet.self])
        let realm = try Realm(configuration: configuration)
        try realm.write {
            let ada = realm.create(Owner.self, value: ["id": 1, "name": "Ada", "born": Date(timeIntervalSince1970: 0), "score": 2.5])
            realm.create(Owner.self, value: ["id": 2, "name": "Bob", "score": Double.nan])
            let rex = realm.create(Pet.self, value: ["name": "Rex", "age": 3, "owner": ada, "tags": ["big", "loud"], "price": Decimal(string: "12.50")!])
            let bo = realm.create(Pet.self, value: ["name": "Bo, \"the\" dog\nsecond line", "age": 1, "owner": ada, "photo": Data([1, 2, 3])])
            ada.pets.append(objectsIn: [rex, bo])
            realm.create(Pet.self, value: ["name": "Stray", "age": 7])
        }
    }

    /// Flips a byte of the page of list `Pet.tags` (found by its stored text, "loud"). With
    /// `behindAnotherCommit`, a commit that changes only an Owner comes first, so the page is
    /// older than the newest commit: a page of the newest commit that fails its checksum makes
    /// that commit incomplete (a torn write), and the file opens at the version before.
    func damageTagsPage(behindAnotherCommit: Bool) throws {
        if behindAnotherCommit {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 3, objectTypes: [Owner.self, Pet.self]))
            try realm.write { realm.object(ofType: Owner.self, forPrimaryKey: 2)!.score = 1 }
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let found = try #require(bytes.range(of: Data("loud".utf8)), "the text is stored uncompressed in a page this small")
        bytes[found.lowerBound] ^= 0x20
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    func run(_ arguments: String..., environment: [String: String] = [:]) throws -> InspectorRun {
        try InspectorRun.run(arguments, in: directory.url, environment: environment)
    }

    @Test("info: format and schema version, current version, sizes, encryption, classes and counts")
    func info() throws {
        try makeFile()
        let run = try run("info", path)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.isEmpty)
        for line in ["format version:  3", "schema version:  3", "encrypted:       no", "classes:         2", "  Owner  2 objects", "  Pet    3 objects"] {
            #expect(run.output.contains(line + "\n"), "no '\(line)' in:\n\(run.output)")
        }
        #expect(run.output.contains("current version: "))
        #expect(run.output.contains("file size:       "))
        #expect(run.output.contains("free bytes:      "))
    }

    @Test("schema: the classes as Swift models")
    func schema() throws {
        try makeFile()
        let run = try run("schema", path, "Pet")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == """
            // schema version 3

            final class Pet: Object {
                @Persisted(indexed: true) var name: String
                @Persisted var age: Int
                @Persisted var owner: Owner?
                @Persisted var tags: List<String>
                @Persisted var photo: Data?
                @Persisted var price: Decimal
                @Persisted(originProperty: "pets") var owners: LinkingObjects<Owner>
            }

            """)
        let all = try self.run("schema", path)
        #expect(all.output.contains("final class Owner: Object {\n    @Persisted(primaryKey: true) var id: Int\n"))
        #expect(all.output.contains("    @Persisted var pets: List<Pet>\n"))
    }

    @Test("sets, maps and embedded objects: their schema, and their values written where they are held")
    func collectionsAndEmbedded() throws {
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Kennel.self, Gate.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                realm.create(Kennel.self, value: ["id": 1, "tags": ["dry"], "capacity": ["small": 4, "large": 2], "gate": ["width": 90, "colour": "red"]])
            }
        }
        let schema = try run("schema", path)
        #expect(schema.status == 0, "\(schema.errors)")
        for line in ["final class Kennel: Object {", "    @Persisted var tags: MutableSet<String>", "    @Persisted var capacity: Map<String, Int>",
                     "    @Persisted var gate: Gate?", "final class Gate: EmbeddedObject {"] {
            #expect(schema.output.contains(line + "\n"), "no '\(line)' in:\n\(schema.output)")
        }
        let table = try run("query", path, "Kennel", "capacity['small'] == 4")
        #expect(table.status == 0, "\(table.errors)")
        #expect(table.output.contains("[dry]") && table.output.contains("[large: 2, small: 4]") && table.output.contains("Gate(width: 90, colour: red)"), "\(table.output)")
        let export = try run("export", path, "--json")
        #expect(export.status == 0, "\(export.errors)")
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(export.output.utf8)) as? [String: [[String: Any]]])
        #expect(exported.keys.sorted() == ["Kennel"], "embedded objects are written inside their parents")
        let kennel = try #require(exported["Kennel"]?.first)
        #expect(kennel["capacity"] as? [String: Int] == ["large": 2, "small": 4])
        #expect((kennel["gate"] as? [String: Any])?["colour"] as? String == "red")
        #expect(kennel["tags"] as? [String] == ["dry"])
    }

    @Test("query: a predicate, sorts, a limit, as a table and as JSON")
    func query() throws {
        try makeFile()
        let table = try run("query", path, "Pet", "age >= 1", "--sort", "-age", "--limit", "2")
        #expect(table.status == 0, "\(table.errors)")
        let lines = table.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix("name   age  owner     tags"))
        #expect(lines[2].hasPrefix("Stray  7    nil       []"))
        #expect(lines[3].hasPrefix("Rex    3    Owner(1)  [big, loud]"))
        #expect(lines[4] == "(2 objects of 3)")

        let json = try run("query", path, "Pet", "owner.name == 'Ada'", "--sort", "name", "--json")
        #expect(json.status == 0, "\(json.errors)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["name"] as? String } == ["Bo, \"the\" dog\nsecond line", "Rex"])
        #expect(objects[0]["photo"] as? String == "AQID")
        #expect(objects[1]["owner"] as? Int == 1)
        #expect(objects[1]["tags"] as? [String] == ["big", "loud"])
        #expect(objects[1]["price"] as? String == "12.5")
        #expect(objects[1]["owners"] == nil)
    }

    @Test("query: a bad predicate, an unknown class or sort key is a usage error (status 2) on stderr")
    func queryErrors() throws {
        try makeFile()
        let predicate = try run("query", path, "Pet", "age >>> 3")
        #expect(predicate.status == 2)
        #expect(predicate.output.isEmpty)
        #expect(predicate.errors.hasPrefix("asyncrealm: the predicate does not apply to Pet: "))
        let unknown = try run("query", path, "Cat")
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("the file has no class 'Cat'; its classes: Owner, Pet"))
        let sort = try run("query", path, "Pet", "--sort", "weight")
        #expect(sort.status == 2)
        #expect(sort.errors.contains("cannot sort by 'weight': Pet has no property 'weight'"))
        let option = try run("query", path, "Pet", "--frobnicate")
        #expect(option.status == 2)
        #expect(option.errors.contains("unknown option '--frobnicate'"))
        #expect(option.errors.contains("Run 'asyncrealm query --help'"))
    }

    @Test("export: the whole file as JSON, one class as CSV")
    func export() throws {
        try makeFile()
        let json = try run("export", path, "--json")
        #expect(json.status == 0, "\(json.errors)")
        let file = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: [[String: Any]]])
        #expect(file.keys.sorted() == ["Owner", "Pet"])
        let owners = try #require(file["Owner"])
        #expect(owners.map { $0["name"] as? String } == ["Ada", "Bob"])
        #expect(owners[0]["pets"] as? [[String: Int]] != nil)  // pets have no primary key: {"$key": n}
        #expect(owners[0]["born"] as? String == "1970-01-01T00:00:00.000Z")
        #expect(owners[1]["score"] as? String == "NaN")
        #expect(owners[1]["born"] is NSNull)

        let csv = try run("export", path, "Pet", "--csv")
        #expect(csv.status == 0, "\(csv.errors)")
        #expect(csv.output == """
            name,age,owner,tags,photo,price\r
            Rex,3,1,"[""big"",""loud""]",,12.5\r
            "Bo, ""the"" dog
            second line",1,1,[],AQID,0\r
            Stray,7,,[],,0\r

            """)
        let noClass = try run("export", path, "--csv")
        #expect(noClass.status == 2)
        #expect(noClass.errors.contains("CSV holds one class: name one of Owner, Pet"))
    }

    @Test("verify: a sound file is ok; a damaged page is named, with its class, and the status is 1")
    func verify() throws {
        try makeFile()
        let sound = try run("verify", path)
        #expect(sound.status == 0, "\(sound.errors)")
        #expect(sound.output.hasPrefix("ok: version "))
        #expect(sound.errors.isEmpty)

        try damageTagsPage(behindAnotherCommit: true)
        let damaged = try run("verify", path)
        #expect(damaged.status == 1)
        #expect(damaged.output.contains("damaged: page at offset "), "\(damaged.output)")
        #expect(damaged.output.contains("(the elements of list 'Pet.tags'): "), "\(damaged.output)")
        #expect(damaged.output.contains("1 problem found"))
    }

    @Test("query and export of a file with a damaged page fail with status 3 and say so, never a crash")
    func damagedObjects() throws {
        try makeFile()
        try damageTagsPage(behindAnotherCommit: true)
        for arguments in [["query", path, "Pet"], ["export", path, "Pet", "--csv"], ["export", path, "--json"]] {
            let run = try InspectorRun.run(arguments, in: directory.url)
            #expect(run.status == 3, "\(arguments): \(run.errors)")
            #expect(run.errors.hasPrefix("asyncrealm: the realm file could not be read"), "\(arguments): \(run.errors)")
            #expect(run.errors.contains("Run 'asyncrealm verify FILE' to list the damaged pages."))
        }
        // What the damage does not reach is read as ever.
        #expect(try run("query", path, "Owner").status == 0)
    }

    @Test("verify: a damaged page of the newest commit makes it incomplete, and is named")
    func verifyNewestCommit() throws {
        try makeFile()
        try damageTagsPage(behindAnotherCommit: false)
        let damaged = try run("verify", path)
        #expect(damaged.status == 1)
        #expect(damaged.output.contains("is incomplete: its page at offset "), "\(damaged.output)")
    }

    @Test("verify: a file that is not a realm is damage; a missing file is status 3")
    func verifyForeignFiles() throws {
        try Data(repeating: 7, count: 20_000).write(to: URL(fileURLWithPath: path))
        let foreign = try run("verify", path)
        #expect(foreign.status == 1)
        #expect(foreign.output.contains("damaged: "))
        #expect(foreign.output.contains("not an AsyncRealm database file"))
        let missing = try run("verify", path + ".missing")
        #expect(missing.status == 3)
        #expect(missing.errors == "asyncrealm: '\(path).missing' does not exist\n")
        let info = try run("info", path)
        #expect(info.status == 3)
        #expect(info.errors.contains("is not a readable realm file"))
    }

    @Test("an encrypted file: refused without its key, read with --key-file or the environment")
    func encrypted() throws {
        let key = Data(testEncryptionKeyBytes)
        try makeFile(key: key)
        let keyFile = directory.url.appendingPathComponent("key").path
        try key.write(to: URL(fileURLWithPath: keyFile))
        let withoutKey = try run("info", path)
        #expect(withoutKey.status == 3)
        #expect(withoutKey.errors.contains("is encrypted; give its key with --key-file PATH or ASYNCREALM_ENCRYPTION_KEY"))
        let withKey = try run("info", path, "--key-file", keyFile)
        #expect(withKey.status == 0, "\(withKey.errors)")
        #expect(withKey.output.contains("encrypted:       yes"))
        let hex = key.map { String(format: "%02x", $0) }.joined()
        let fromEnvironment = try run("verify", path, environment: ["ASYNCREALM_ENCRYPTION_KEY": hex])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.errors)")
        var wrong = key
        wrong[0] ^= 1
        let wrongKey = try run("query", path, "Pet", environment: ["ASYNCREALM_ENCRYPTION_KEY": wrong.map { String(format: "%02x", $0) }.joined()])
        #expect(wrongKey.status == 3)
        #expect(wrongKey.errors.contains("the key does not open"))
    }

    @Test("compact: the file shrinks, keeps every object, and is refused while open elsewhere")
    func compact() throws {
        try makeFile()
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 3, objectTypes: [Owner.self, Pet.self]))
            try realm.write {
                for index in 0..<3000 { realm.create(Pet.self, value: ["name": "pet \(index) " + String(repeating: "x", count: 200), "age": index]) }
            }
            try realm.write { realm.delete(realm.objects(Pet.self).filter("age >= 10")) }
            let busy = try run("compact", path)
            #expect(busy.status == 3)
            #expect(busy.errors.contains("is open in another process"))
        }
        let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        let run = try run("compact", path)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("compacted '\(path)': "))
        let after = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(after < before / 2)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 3, objectTypes: [Owner.self, Pet.self]))
        #expect(realm.objects(Pet.self).count == 3 + 10)
        #expect(try self.run("verify", path).status == 0)
    }

    @Test("a progress bar on stderr when it is a terminal (run under script(1)), erased at the end")
    func progressOnTerminal() throws {
        try makeFile()
        let executable = try childExecutablePath("asyncrealm")
        let run = try InspectorRun.run(["-q", "-e", "-c", "'\(executable)' verify '\(path)'", "/dev/null"], in: directory.url, executable: "/usr/bin/script")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("\rverify [##############################] 100%"), "\(run.output.debugDescription)")
        #expect(run.output.contains("\r\u{1B}[Kok: version "), "\(run.output.debugDescription)")
    }

    @Test("--help for the tool and for each command; usage errors name the command's help")
    func help() throws {
        let overview = try run("--help")
        #expect(overview.status == 0)
        for command in ["info", "schema", "query", "export", "verify", "compact"] {
            #expect(overview.output.contains("  \(command) "))
            let help = try run(command, "--help")
            #expect(help.status == 0)
            #expect(help.output.hasPrefix("USAGE: asyncrealm \(command) FILE"))
        }
        #expect(overview.output.contains("EXIT STATUS:"))
        let none = try run()
        #expect(none.status == 2)
        let unknown = try run("drop", path)
        #expect(unknown.status == 2)
        #expect(unknown.errors.hasPrefix("asyncrealm: unknown command 'drop'"))
        let missing = try run("info")
        #expect(missing.status == 2)
        #expect(missing.errors.hasPrefix("asyncrealm: missing the realm file\n"))
    }
}

@Suite("The asyncrealm inspector on a large file")
struct InspectorLargeFileTests {
    /// The peak memory `--stats` reports on stderr.
    static func peakMemory(of run: InspectorRun) throws -> Int {
        let line = try #require(run.errors.split(separator: "\n").first { $0.hasPrefix("stats: peak memory ") })
        return try #require(Int(line.dropFirst("stats: peak memory ".count).prefix { $0.isNumber }))
    }

    @Test("export streams: its peak memory grows far less than what it writes")
    func exportStreams() throws {
        let directory = TemporaryDirectory()
        let path = directory.url.appendingPathComponent("large.realm").path
        // ASYNCREALM_INSPECTOR_OBJECTS=1000000 measures a million objects (a few minutes here).
        let count = ProcessInfo.processInfo.environment["ASYNCREALM_INSPECTOR_OBJECTS"].flatMap(Int.init) ?? 100_000
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Owner.self, Pet.self]))
            var generator = SeededGenerator(seed: 11)
            // Names cut from random letters (which LZ4 cannot shrink), 600 bytes each.
            let letters = String((0..<8192).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement(using: &generator)! }).utf8
            try realm.write {
                for index in 0..<count {
                    let start = letters.index(letters.startIndex, offsetBy: Int.random(in: 0..<(8192 - 600), using: &generator))
                    let name = String(letters[start..<letters.index(start, offsetBy: 600)])!
                    realm.create(Owner.self, value: ["id": index, "name": name, "score": Double(index)])
                }
            }
        }
        let small = try InspectorRun.run(["query", path, "Owner", "--limit", "1", "--stats"], in: directory.url)
        #expect(small.status == 0, "\(small.errors)")
        let export = try InspectorRun.run(["export", path, "Owner", "--json", "--stats"], in: directory.url)
        #expect(export.status == 0, "\(export.errors)")
        #expect(!export.errors.contains("export ["), "a progress bar was drawn on a stderr that is not a terminal")
        let written = export.output.utf8.count
        #expect(written > count * 600)
        #expect(export.output.hasSuffix("}\n]\n"))
        let growth = try Self.peakMemory(of: export) - Self.peakMemory(of: small)
        print("export of \(count) objects: wrote \(written) bytes; peak memory \(try Self.peakMemory(of: export)) bytes, \(growth) more than a one-object query's")
        #expect(growth < written / 4)
    }
}
