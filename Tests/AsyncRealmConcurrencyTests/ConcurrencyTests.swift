import Foundation
import Testing
@testable import AsyncRealm
@testable import StorageEngine
import TestSupport

/// Writes through `asyncWrite` from its own realm.
actor Writer {
    let configuration: Realm.Configuration
    let number: Int

    init(configuration: Realm.Configuration, number: Int) {
        self.configuration = configuration
        self.number = number
    }

    func increment(times: Int) async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        for sequence in 0..<times {
            try await realm.asyncWrite {
                let counter = realm.object(ofType: Counter.self, forPrimaryKey: 1)!
                counter.value += 1
                realm.add(Entry(value: ["writer": number, "sequence": sequence]))
            }
        }
    }
}

/// Appends entries, checking after each write that it is durable: the file on disk holds it,
/// or the redo log does (a synchronous write while the process is alone with the file).
actor DurabilityChecker {
    let configuration: Realm.Configuration
    let number: Int

    init(configuration: Realm.Configuration, number: Int) {
        self.configuration = configuration
        self.number = number
    }

    /// Returns the writes whose version was not yet in the file's header when they returned.
    func append(times: Int, synchronously: Bool) async throws -> [UInt64] {
        let realm = try await Realm(configuration: configuration, actor: self)
        let file = try PosixFile(path: configuration.fileURL!.path, create: false, readOnly: true)
        var early: [UInt64] = []
        for sequence in 0..<times {
            let entry = ["writer": number, "sequence": sequence]
            if synchronously {
                try realm.write { realm.add(Entry(value: entry)) }
                await Task.yield()
            } else {
                try await realm.asyncWrite { realm.add(Entry(value: entry)) }
            }
            let version = try #require(realm.lastCommit?.version)
            let onDisk = try FileHeader.read(from: file) { _ in nil }.header.version
            // A record of an older generation is no newer than the file's header.
            let log = try? PosixFile(path: configuration.fileURL!.path + ".log", create: false, readOnly: true)
            let logged = try log.flatMap { try RedoLog.open($0)?.0.lastVersion } ?? 0
            if max(onDisk, logged) < version { early.append(version) }
        }
        return early
    }
}

/// Follows the entries through a change stream until it has seen `expected` of them.
actor Observer {
    let configuration: Realm.Configuration

    init(configuration: Realm.Configuration) {
        self.configuration = configuration
    }

    /// The entry count and counter value of the last element, and how many elements came.
    func follow(until expected: Int) async throws -> (entries: Int, counter: Int, elements: Int) {
        let realm = try await Realm(configuration: configuration, actor: self)
        let entries = realm.objects(Entry.self)
        var elements = 0
        for await change in entries.changes {
            elements += 1
            let current: Results<Entry>
            switch change {
            case .initial(let results): current = results
            case .update(let results, _, _, _): current = results
            }
            if current.count >= expected { break }
        }
        return (entries.count, realm.object(ofType: Counter.self, forPrimaryKey: 1)?.value ?? -1, elements)
    }
}

@Suite("Actors, asyncWrite and frozen values")
struct ConcurrencyTests {
    /// Run under ThreadSanitizer in CI: the commit's leaves are encoded on several threads
    /// (`ParallelLeafEncoding`), while readers on other actors read the version before.
    @Test("a large asyncWrite, whose leaves are compressed on several threads, stores every object while others read")
    func largeCommitOnSeveralThreads() async throws {
        let directory = TemporaryDirectory()
        let configuration = directory.configuration
        let writer = try await Realm.open(configuration: configuration)
        try await writer.asyncWrite {
            for id in 0..<200 { writer.add(Pet(value: ["id": id, "name": "first \(id)", "age": id % 30])) }
        }
        let frozen = Frozen(writer.objects(Pet.self))
        async let reads = withTaskGroup(of: Int.self) { group in
            for _ in 0..<2 { group.addTask { frozen.value.reduce(0) { $0 + $1.age } } }
            return await group.reduce(0, +)
        }
        try await writer.asyncWrite {
            for id in 200..<12_000 { writer.add(Pet(value: ["id": id, "name": "pet number \(id) with a longer name", "age": id % 30])) }
        }
        let firstSum = (0..<200).reduce(0) { $0 + $1 % 30 }
        #expect(await reads == 2 * firstSum)
        let reader = try await Realm.open(configuration: configuration)
        let pets = reader.objects(Pet.self)
        #expect(pets.count == 12_000)
        #expect(pets.sum(ofProperty: "age") as Int == (0..<12_000).reduce(0) { $0 + $1 % 30 })
        #expect(reader.object(ofType: Pet.self, forPrimaryKey: 11_999)?.name == "pet number 11999 with a longer name")
    }
    @Test("50 actors x 100 asyncWrites while 10 actors follow change streams: exact final state, no deadlock")
    func contendedWritersAndObservers() async throws {
        let directory = TemporaryDirectory()
        let configuration = directory.configuration
        let setup = try await Realm.open(configuration: configuration)
        try await setup.asyncWrite { setup.add(Counter(value: ["id": 1, "value": 0])) }
        let writers = 50, writes = 100
        let total = writers * writes
        let observed = try await withThrowingTaskGroup(of: (entries: Int, counter: Int, elements: Int)?.self) { group in
            for _ in 0..<10 {
                group.addTask { try await Observer(configuration: configuration).follow(until: total) }
            }
            for number in 0..<writers {
                group.addTask {
                    try await Writer(configuration: configuration, number: number).increment(times: writes)
                    return nil
                }
            }
            var results: [(entries: Int, counter: Int, elements: Int)] = []
            for try await result in group { if let result { results.append(result) } }
            return results
        }
        setup.refresh()
        #expect(setup.object(ofType: Counter.self, forPrimaryKey: 1)?.value == total)
        #expect(setup.objects(Entry.self).count == total)
        // Each writer's entries are all there, in its order.
        let sequences = Dictionary(grouping: setup.objects(Entry.self), by: \.writer).mapValues { $0.map(\.sequence) }
        #expect(sequences.count == writers)
        #expect(sequences.values.allSatisfy { $0 == Array(0..<writes) })
        #expect(observed.count == 10)
        for result in observed {
            #expect(result.entries == total)
            #expect(result.counter == total)
            #expect(result.elements <= total + 1, "coalesced: never more elements than commits")
        }
    }

    /// Runs `asynchronous` actors doing `asyncWrite`s and `synchronous` actors doing `write`s,
    /// `writes` each, and checks the final state; returns the writes that returned before the
    /// file held them, and the process's group statistics.
    func mixedWriters(asynchronous: Int, synchronous: Int, writes: Int) async throws -> (early: [UInt64], statistics: (groups: Int, commits: Int)) {
        let directory = TemporaryDirectory()
        let configuration = directory.configuration
        let setup = try await Realm.open(configuration: configuration)
        try await setup.asyncWrite { setup.add(Counter(value: ["id": 1, "value": 0])) }
        let early = try await withThrowingTaskGroup(of: [UInt64].self) { group in
            for number in 0..<(asynchronous + synchronous) {
                group.addTask {
                    try await DurabilityChecker(configuration: configuration, number: number)
                        .append(times: writes, synchronously: number >= asynchronous)
                }
            }
            var early: [UInt64] = []
            for try await versions in group { early += versions }
            return early
        }
        setup.refresh()
        #expect(setup.objects(Entry.self).count == (asynchronous + synchronous) * writes)
        let sequences = Dictionary(grouping: setup.objects(Entry.self), by: \.writer).mapValues { $0.map(\.sequence) }
        #expect(sequences.count == asynchronous + synchronous)
        #expect(sequences.values.allSatisfy { $0 == Array(0..<writes) })
        return (early, setup.database.groupStatistics)
    }

    @Test("asyncWrites queued behind each other share syncs, and each returns only once its commit is in the file")
    func commitGroups() async throws {
        let (early, statistics) = try await mixedWriters(asynchronous: 8, synchronous: 0, writes: 40)
        #expect(early.isEmpty, "writes returned before the file held them: versions \(early)")
        #expect(statistics.groups > 0 && statistics.commits > statistics.groups, "eight queued writers should share syncs: \(statistics)")
    }

    @Test("synchronous writers on actors mixed with asyncWrites: no one waits forever, every write is in the file when it returns")
    func synchronousWritersAmongGroups() async throws {
        let (early, _) = try await mixedWriters(asynchronous: 4, synchronous: 2, writes: 20)
        #expect(early.isEmpty, "writes returned before the file held them: versions \(early)")
    }

    @Test("a realm whose commit waits for its group reads its own commit; refresh() never steps back to the durable version")
    func refreshDuringGroup() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        try await realm.asyncWrite { realm.add(Counter(value: ["id": 1, "value": 0])) }
        let durable = realm.database.durableVersion
        // Commit into a group, as an asyncWrite with a writer queued behind it does.
        realm.start(try realm.database.beginWrite())
        realm.object(ofType: Counter.self, forPrimaryKey: 1)!.value = 7
        try realm.commitWrite(withoutNotifying: [], whenDurable: { _ in })
        #expect(realm.database.durableVersion == durable, "the group is not durable yet")
        #expect(!realm.refresh())
        #expect(realm.object(ofType: Counter.self, forPrimaryKey: 1)?.value == 7)
        try realm.database.commitOpenGroup()
        #expect(realm.database.durableVersion == durable + 1)
        #expect(realm.object(ofType: Counter.self, forPrimaryKey: 1)?.value == 7)
    }

    @Test("asyncWrite rolls back when its block throws or its task is cancelled")
    func asyncWriteRollsBack() async throws {
        struct Refused: Error {}
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        await #expect(throws: Refused.self) {
            try await realm.asyncWrite {
                realm.add(Toy(value: ["id": 1, "color": "red"]))
                throw Refused()
            }
        }
        #expect(realm.objects(Toy.self).isEmpty)
        #expect(!realm.isInWriteTransaction)
        let configuration = directory.configuration
        let cancelled = Task {
            let realm = try await Realm.open(configuration: configuration)
            withUnsafeCurrentTask { $0?.cancel() }
            try await realm.asyncWrite { realm.add(Toy(value: ["id": 2, "color": "blue"])) }
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        realm.refresh()
        #expect(realm.objects(Toy.self).isEmpty)
        // A synchronous write waits for nothing and is seen at once.
        try realm.write { realm.add(Toy(value: ["id": 3, "color": "green"])) }
        #expect(realm.objects(Toy.self).count == 1)
    }

    @Test("two processes each incrementing a counter 1,000 times end at 2,000 and see each other's commits")
    func twoProcesses() async throws {
        let directory = TemporaryDirectory()
        let path = directory.url.appendingPathComponent("shared.realm").path
        let executable = try counterProcessPath()
        let increments = 1_000
        // The children's output goes to files, and their ends are awaited through termination
        // handlers: no thread of the cooperative pool blocks on a pipe or waitUntilExit.
        let outputs = try await withThrowingTaskGroup(of: String.self) { group in
            for child in 0..<2 {
                group.addTask {
                    let outputURL = directory.url.appendingPathComponent("child\(child).out")
                    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: executable)
                    process.arguments = [path, String(increments)]
                    process.standardOutput = try FileHandle(forWritingTo: outputURL)
                    let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
                        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                        do { try process.run() } catch { continuation.resume(throwing: error) }
                    }
                    let output = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
                    return output + " status=\(status)"
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for output in outputs {
            #expect(output.contains("status=0"), "\(output)")
            #expect(output.contains("final=2000"), "\(output)")
            let fields = output.split(whereSeparator: \.isWhitespace)
            let sawOther = fields.first { $0.hasPrefix("sawOther=") }.flatMap { Int($0.dropFirst(9)) } ?? 0
            #expect(sawOther > 0, "each process sees the other's commits through its stream: \(output)")
        }
        let realm = try await Realm.open(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
        #expect(realm.dynamicObjects("Counter").first?["value"] as? Int == 2 * increments)
    }

    @Test("a consumer suspended through 10,000 commits gets one coalesced change, in flat memory")
    func suspendedConsumer() async throws {
        // In a child process of its own, so that the memory measured is this scenario's alone.
        // The child explains a failure in a file named after this process.
        let report = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("suspended-consumer-\(getpid()).txt")
        await #expect(processExitsWith: .success) {
            func check(_ condition: Bool, _ message: String) {
                guard !condition else { return }
                let report = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("suspended-consumer-\(getppid()).txt")
                try? Data(message.utf8).write(to: report)
                exit(1)
            }
            let directory = TemporaryDirectory()
            // A small page cache, so that growth past it shows memory the stream would cost.
            var configuration = directory.configuration
            configuration.pageCacheBytes = 4 << 20
            let realm = try await Realm.open(configuration: configuration)
            let counter = try await realm.asyncWrite { realm.create(Counter.self, value: ["id": 1, "value": 0]) }
            var changes = counter.changes.makeAsyncIterator()
            let writer = Writer(configuration: configuration, number: 0)
            try await writer.increment(times: 1_000)
            let before = residentBytes()
            try await writer.increment(times: 9_000)
            let after = residentBytes()
            guard case .change(_, let properties)? = await changes.next() else { return check(false, "no change") }
            check(properties.first { $0.name == "value" }?.oldValue as? Int == 0, "old value \(properties)")
            check(properties.first { $0.name == "value" }?.newValue as? Int == 10_000, "new value \(properties)")
            check(counter.value == 10_000, "counter \(counter.value)")
            // ThreadSanitizer keeps shadow memory for every byte touched; allow for it.
            let allowance = isThreadSanitized() ? 96 << 20 : 16 << 20
            check(after - before < allowance, "9,000 more commits grew memory by \(after - before) bytes")
            // Exactly one: nothing is pending until the next commit.
            try await realm.asyncWrite { counter.value = -1 }
            guard case .change(_, let next)? = await changes.next() else { return check(false, "no second change") }
            check(next.first?.oldValue as? Int == 10_000, "second change \(next)")
        }
        if let message = try? String(contentsOf: report, encoding: .utf8) {
            Issue.record("the child said: \(message)")
            try? FileManager.default.removeItem(at: report)
        }
    }

    @Test("frozen results read from 8 tasks at once while a writer commits")
    func frozenReads() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        try await realm.asyncWrite {
            for id in 0..<2_000 { realm.add(Pet(value: ["id": id, "name": "pet \(id)", "age": id % 20])) }
        }
        let frozen = Frozen(realm.objects(Pet.self))
        let expected = (0..<2_000).reduce(0) { $0 + $1 % 20 }
        let configuration = directory.configuration
        let writer = Task {
            let realm = try await Realm.open(configuration: configuration)
            for round in 0..<50 {
                try await realm.asyncWrite { for pet in realm.objects(Pet.self).filter("id < 100") { pet.age = round + 100 } }
            }
        }
        let sums = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var total = 0
                    for _ in 0..<5 {
                        let pets = frozen.value
                        #expect(pets.isFrozen)
                        total = pets.reduce(0) { $0 + $1.age }
                    }
                    return total
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        try await writer.value
        #expect(sums == Array(repeating: expected, count: 8))
        #expect(frozen.value.count == 2_000)
        realm.refresh()
        #expect(realm.objects(Pet.self).sum(ofProperty: "age") as Int != expected)
        // Thawing gives the live objects at the newest version.
        let thawed = try #require(frozen.value.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.filter("id < 100").allSatisfy { $0.age == 149 })
    }

    @Test("freeze() and thaw() on realms, objects, results, lists and linking objects")
    func freezing() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let owner = try await realm.asyncWrite {
            realm.create(Owner.self, value: ["id": 1, "name": "Ann", "pets": [["id": 1, "name": "a", "age": 1]], "tags": ["x"]])
        }
        let frozenOwner = owner.freeze()
        let frozenPets = owner.pets.freeze()
        let frozenTags = owner.tags.freeze()
        let frozenResults = realm.objects(Pet.self).freeze()
        let frozenOwners = owner.pets[0].owners.freeze()
        let frozenRealm = realm.freeze()
        #expect(frozenOwner.isFrozen && frozenPets.isFrozen && frozenResults.isFrozen && frozenRealm.isFrozen)
        #expect(!owner.isFrozen && !realm.isFrozen)
        try await realm.asyncWrite {
            owner.name = "Anne"
            owner.pets.append(Pet(value: ["id": 2, "name": "b", "age": 2]))
            owner.tags.append("y")
        }
        #expect(frozenOwner.name == "Ann")
        #expect(frozenPets.count == 1 && frozenTags.count == 1)
        #expect(frozenResults.count == 1)
        #expect(frozenOwners.count == 1)
        #expect(frozenRealm.objects(Pet.self).count == 1)
        #expect(frozenRealm.refresh() == false)
        #expect(owner.name == "Anne")
        let thawed = try #require(frozenOwner.thaw())
        #expect(thawed.name == "Anne" && !thawed.isFrozen)
        #expect(frozenPets.thaw()?.count == 2)
        try await realm.asyncWrite { realm.delete(owner) }
        #expect(frozenOwner.thaw() == nil)
        #expect(frozenOwner.name == "Ann", "a frozen object outlives its deletion")
    }

    @Test("thread-safe references resolve in another actor at a version at least as new, nil once deleted")
    func threadSafeReferences() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let owner = try await realm.asyncWrite {
            realm.create(Owner.self, value: ["id": 1, "name": "Ann", "pets": [["id": 1, "name": "a", "age": 1], ["id": 2, "name": "b", "age": 5]]])
        }
        let ownerReference = ThreadSafeReference(to: owner)
        let listReference = ThreadSafeReference(to: owner.pets)
        let resultsReference = ThreadSafeReference(to: realm.objects(Pet.self).filter("age > 2"))
        let linkingReference = ThreadSafeReference(to: owner.pets[0].owners)
        let other = RealmActor(configuration: directory.configuration)
        try await other.open()
        let seen = await other.resolve(ownerReference, listReference, resultsReference, linkingReference)
        #expect(seen.name == "Ann" && seen.pets == 2 && seen.results == ["b"] && seen.owners == 1)

        let deleted = ThreadSafeReference(to: owner.pets[1])
        try await realm.asyncWrite { realm.delete(owner.pets[1]) }
        #expect(await other.isNil(deleted))
    }

    @Test("a reference whose object another writer then deletes resolves to nil in an actor whose realm has not advanced")
    func resolveSeesDeletion() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm.open(configuration: directory.configuration)
        let pet = try await realm.asyncWrite { realm.create(Pet.self, value: ["id": 1, "name": "a", "age": 1]) }
        // The resolving actor's realm reads the version the reference is made at, and no later.
        let resolver = RealmActor(configuration: directory.configuration)
        try await resolver.open()
        let reference = ThreadSafeReference(to: pet)
        let writer = RealmActor(configuration: directory.configuration)
        try await writer.open()
        try await writer.deleteAllPets()
        #expect(await resolver.resolvesToNil(reference))
    }

    @Test("maximumNumberOfActiveVersions: a commit that would keep more versions throws")
    func activeVersionLimit() async throws {
        let directory = TemporaryDirectory()
        var configuration = directory.configuration
        configuration.maximumNumberOfActiveVersions = 2
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite { realm.add(Toy(value: ["id": 1, "color": "red"])) }
        #expect(realm.numberOfActiveVersions == 1)
        let frozen = realm.freeze()
        try await realm.asyncWrite { realm.add(Toy(value: ["id": 2, "color": "red"])) }
        #expect(realm.numberOfActiveVersions == 2)
        let error = await #expect(throws: RealmError.self) {
            try await realm.asyncWrite { realm.add(Toy(value: ["id": 3, "color": "red"])) }
        }
        #expect(error?.code == .limitExceeded)
        #expect(realm.objects(Toy.self).count == 2, "the refused write stored nothing")
        #expect(frozen.objects(Toy.self).count == 1)
        _ = consume frozen
        try await realm.asyncWrite { realm.add(Toy(value: ["id": 3, "color": "red"])) }
        #expect(realm.objects(Toy.self).count == 3)
    }
}

extension RealmActor {
    func resolve(_ owner: ThreadSafeReference<Owner>, _ list: ThreadSafeReference<List<Pet>>,
                 _ results: ThreadSafeReference<Results<Pet>>, _ linking: ThreadSafeReference<LinkingObjects<Owner>>)
        -> (name: String, pets: Int, results: [String], owners: Int) {
        let owner = realm.resolve(owner)
        let pets = realm.resolve(list)
        let filtered = realm.resolve(results)
        let owners = realm.resolve(linking)
        return (owner?.name ?? "", pets?.count ?? -1, filtered.map { Array($0.map(\.name)) } ?? [], owners?.count ?? -1)
    }

    func deleteAllPets() async throws {
        try await realm.asyncWrite { realm.delete(realm.objects(Pet.self)) }
    }

    /// Resolves `reference` without refreshing first.
    func resolvesToNil(_ reference: ThreadSafeReference<Pet>) -> Bool {
        realm.resolve(reference) == nil
    }

    func isNil(_ reference: ThreadSafeReference<Pet>) -> Bool {
        // Resolving refreshes only to the reference's version; this realm is already past it.
        realm.refresh()
        return realm.resolve(reference) == nil
    }
}

/// The CounterProcess executable, built next to the test bundle.
func counterProcessPath() throws -> String { try childExecutablePath("CounterProcess") }
