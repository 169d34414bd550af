import Foundation
import Testing
import TestSupport
@testable import AsyncRealm
@testable import StorageEngine

/// A migration is one write transaction: killed, failing or raced at any moment, it leaves the
/// old file whole or the migrated one, never a mix, and it runs once.
@Suite("Migrations under crashes, faults and other processes")
struct MigrationCrashTests {
    /// The MigratingProcess executable, built next to the test bundle.
    static func childPath() throws -> String { try childExecutablePath("MigratingProcess") }

    /// Starts MigratingProcess with `arguments`; its standard output goes to `output`.
    static func start(_ arguments: [String], output: Pipe? = nil) throws -> Process {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try childPath())
        child.arguments = arguments
        if let output { child.standardOutput = output }
        try child.run()
        return child
    }

    /// Runs MigratingProcess with `arguments` to the end, returning its exit status and output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let pipe = Pipe()
        let child = try start(arguments, output: pipe)
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        return (child.terminationStatus, String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("SIGKILL at random moments of a migration of 100,000 objects, 20 times: the file is always the old one whole or the migrated one whole")
    func killedMigrations() async throws {
        let directory = TemporaryDirectory()
        let seed = directory.filePath("seed.realm")
        let count = 100_000
        #expect(try Self.run(["seed", seed, String(count)]).status == 0)
        // How long a migration takes here, so that the kills spread over all of it.
        let timed = directory.filePath("timed.realm")
        try FileManager.default.copyItem(atPath: seed, toPath: timed)
        let started = ContinuousClock.now
        #expect(try Self.run(["migrate", timed, directory.filePath("timed.side")]).output == "opened")
        let duration = ContinuousClock.now - started
        #expect(try Self.run(["verify", timed, String(count)]).output == "version 2 ok")

        var random = SeededGenerator(seed: testSeed())
        var outcomes: [String: Int] = [:]
        for round in 0..<20 {
            let file = directory.filePath("round\(round).realm")
            try FileManager.default.copyItem(atPath: seed, toPath: file)
            let child = try Self.start(["migrate", file, directory.filePath("round\(round).side")], output: Pipe())
            let delay = duration * Double.random(in: 0.05...1.1, using: &random)
            try await Task.sleep(for: delay)
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            let (status, output) = try Self.run(["verify", file, String(count)])
            #expect(status == 0, "round \(round), killed after \(delay): \(output)")
            outcomes[output, default: 0] += 1
        }
        print("killed migrations ended as: \(outcomes)")
    }

    @Test("two processes opening an old file at once migrate it once; the second waits and sees the migrated file")
    func twoProcessesMigrateOnce() throws {
        let directory = TemporaryDirectory()
        let file = directory.filePath("shared.realm")
        let side = directory.filePath("side")
        _ = FileManager.default.createFile(atPath: side, contents: nil)
        #expect(try Self.run(["seed", file, "20000"]).status == 0)
        let pipes = [Pipe(), Pipe()]
        let children = try pipes.map { try Self.start(["migrate", file, side], output: $0) }
        for (child, pipe) in zip(children, pipes) {
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            #expect(child.terminationStatus == 0)
            #expect(output.contains("opened"))
        }
        let runs = try String(contentsOfFile: side, encoding: .utf8).split(separator: "\n")
        #expect(runs.count == 1, "the block ran \(runs.count) times")
        #expect(try Self.run(["verify", file, "20000"]).output == "version 2 ok")
    }

    @Test("opening while another handle holds the write lock waits at most openTimeout, then throws timedOut; the file is not changed")
    func migrationWaitsBounded() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try MigrationTests.makeOldFile(url)
        let holder = try Database.open(path: url.path)
        let transaction = try holder.beginWrite()
        var configuration = MigrationTests.configuration(url, version: 2, types: MigrationTests.newTypes)
        configuration.openTimeout = .milliseconds(300)
        let error = #expect(throws: RealmError.self) { try Realm(configuration: configuration) }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("migration") == true, "\(error?.message ?? "")")
        transaction.rollback()
        #expect(try schemaVersionAtURL(url) == 1)
        _ = try Realm(configuration: configuration)
        #expect(try schemaVersionAtURL(url) == 2)
    }

    /// A version-1 realm in `file`, through the configuration the faults are injected under.
    static func faultConfiguration(_ file: FaultInjectingFile, version: UInt64) -> Realm.Configuration {
        var configuration = Realm.Configuration(
            inMemoryIdentifier: "fault-\(ObjectIdentifier(file).hashValue)", schemaVersion: version,
            objectTypes: version == 1 ? MigrationTests.oldTypes : MigrationTests.newTypes)
        configuration.file = file
        return configuration
    }

    /// What a file holds, read through the models of its schema version.
    static func contents(of file: FaultInjectingFile) throws -> (version: UInt64, people: [String]) {
        let version = try #require(try SchemaStore.version(from: Database.open(file: file).snapshot()))
        let realm = try Realm(configuration: faultConfiguration(file, version: version))
        let people = version == 1
            ? realm.objects(Old.Person.self).map { "\($0.name) \($0.age.map(String.init) ?? "-") \($0.dogs.count)" }
            : realm.objects(New.Person.self).map { "\($0.name) \($0.age) \($0.pets.count) \($0.email)" }
        return (version, people.sorted())
    }

    @Test("a crash at every write of a migration, dropping unsynced writes or tearing the write, leaves the old or the migrated file; a failing write leaves the old one")
    func faultAtEveryWrite() throws {
        let file = FaultInjectingFile()
        do {
            let realm = try Realm(configuration: Self.faultConfiguration(file, version: 1))
            try realm.write {
                for index in 0..<60 {
                    let person = realm.create(Old.Person.self, value: ["name": "p\(index)", "age": (index % 3 == 0 ? nil : index) as Any, "born": "1999"])
                    person.dogs.append(realm.create(Old.Dog.self, value: ["name": "d\(index)", "yearsOld": index, "tags": ["x", nil]]))
                }
            }
        }
        let base = file.contents
        let before = try Self.contents(of: FaultInjectingFile(contents: base))
        #expect(before.version == 1 && before.people.count == 60)
        file.clearLog()
        let migrate = { (file: FaultInjectingFile) throws in
            _ = try Realm(configuration: Self.faultConfiguration(file, version: 2).with { migration, _ in
                migration.renameProperty(onType: "Person", from: "dogs", to: "pets")
                migration.enumerateObjects(ofType: "Person") { _, newObject in newObject!["email"] = "moved" }
            })
        }
        try migrate(file)
        let after = try Self.contents(of: file)
        #expect(after.version == 2 && after.people.count == 60 && after.people.allSatisfy { $0.hasSuffix(" 1 moved") })
        let log = file.log
        var random = SeededGenerator(seed: testSeed())
        var writes = 0
        for (index, operation) in log.enumerated() {
            guard case .write(_, let bytes) = operation else { continue }
            writes += 1
            let cases: [FaultInjectingFile.CrashOutcome] = [
                .dropUnsynced, .tornWrite(prefix: Int.random(in: 0..<max(bytes.count, 1), using: &random)), .tornWrite(prefix: bytes.count),
            ]
            for outcome in cases {
                let image = FaultInjectingFile.crashImage(base: base, log: log, crashingAt: index, outcome: outcome)
                let found = try Self.contents(of: FaultInjectingFile(contents: image))
                #expect(found.version == 1 ? found.people == before.people : found.people == after.people, "crash at write \(index) (\(outcome))")
            }
        }
        #expect(writes > 3, "\(writes) writes")
        var failedOpens = 0
        for failing in 0..<writes {
            let faulty = FaultInjectingFile(contents: base)
            faulty.failWrites(after: failing, with: StorageError(.ioError, "injected"))
            // A write failing after the commit (closing the file) fails nothing the open does.
            let failed = (try? migrate(faulty)) == nil
            faulty.stopFailing()
            let found = try Self.contents(of: faulty)
            if failed {
                failedOpens += 1
                #expect(found.version == 1 && found.people == before.people, "write \(failing) failed")
            } else {
                #expect(found.version == 2 && found.people == after.people, "write \(failing) failed after the commit")
            }
        }
        #expect(failedOpens >= 2, "\(failedOpens) of \(writes) failing writes failed the open")
    }

    @Test("a handle reading a class that another process migrates stops with a message instead of reading moved columns")
    func externalMigrationStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let url = directory.file()
            try MigrationTests.makeOldFile(url)
            let realm = try Realm(configuration: MigrationTests.configuration(url, version: 1, types: MigrationTests.oldTypes))
            _ = realm.objects(Old.Person.self).first?.name
            // What another process's migration commits, written through a handle of the engine.
            let other = try Database.open(path: url.path)
            let newSchema = try SchemaDiscovery.schema(for: MigrationTests.newTypes).objectSchema
            try other.write { try SchemaStore.replaceSchema(with: newSchema, in: $0) }
            realm.refresh()
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("another process migrated this realm while this handle read objects of 'Person'"), "\(stderr)")
    }
}

extension Realm.Configuration {
    /// This configuration with `block` as its migration block.
    func with(_ block: @escaping Realm.MigrationBlock) -> Realm.Configuration {
        var configuration = self
        configuration.migrationBlock = block
        return configuration
    }
}
