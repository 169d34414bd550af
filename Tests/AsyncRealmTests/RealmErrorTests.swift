import Foundation
import Testing
@testable import StorageEngine
@testable import AsyncRealm
import TestSupport

@Suite("Errors reaching users")
struct RealmErrorTests {
    @Test("a corrupted file surfaces as invalidDatabase with the engine's message and offset")
    func corruptedFile() throws {
        let file = InMemoryFile(contents: Array("not a realm".utf8) + [UInt8](repeating: 0, count: 9000))
        let error = #expect(throws: RealmError.self) {
            try RealmError.translating { try Database.open(file: file) }
        }
        #expect(error?.code == .invalidDatabase)
        #expect(error?.message.contains("not an AsyncRealm database") == true)
        #expect(error?.offset == 0)
    }

    /// A file of 3,000 dogs whose row tree's last leaf (the rows of the newest dogs) fails its
    /// checksum; the rest of the file is intact, so it opens.
    static func damagedDogs(at path: String) throws {
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Dog.self, Person.self]))
            try realm.write {
                for number in 0..<3000 { realm.create(Dog.self, value: ["name": "dog \(number)", "age": number % 20]) }
            }
            // A later commit: opening checks the newest commit's pages, and the damage is to be
            // met by reads, not by opening.
            try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Ana"]) }
        }
        let ref: PageRef = try {
            let snapshot = try Database.open(path: path).snapshot()
            var ref = try #require(snapshot.tableIfPresent(SchemaStore.tableName(forClass: "Dog"))).roots.rows
            while case .branch(let branch) = try snapshot.store.node(ref), case .stored(let last)? = branch.children.last { ref = last }
            return ref
        }()
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? file.close() }
        let position = ref.offset + UInt64(ref.length / 2)
        try file.seek(toOffset: position)
        let byte = try #require(try file.read(upToCount: 1)?.first)
        try file.seek(toOffset: position)
        try file.write(contentsOf: [byte ^ 0x5A])
    }

    @Test("reads that meet a damaged page stop with a message, not with a short or empty answer",
          arguments: ["iterate", "sum", "scan", "index"])
    func damagedPageStopsReads(read: String) async throws {
        let directory = TemporaryDirectory()
        let path = directory.file().path
        try Self.damagedDogs(at: path)
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String, read = read as String] in
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Dog.self, Person.self]))
            let dogs = realm.objects(Dog.self)
            switch read {
            case "iterate": print(dogs.reduce(0) { $0 + $1.age })
            case "sum": print(dogs.sum(ofProperty: "age") as Int)
            case "scan": print(dogs.filter("age >= 0").count)
            default: print(dogs.filter("name == %@", "dog 2999").count)
            }
        }
        let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(printed.contains("the realm file could not be read"), "\(printed)")
        #expect(printed.contains("failed its checksum"), "\(printed)")
    }

    @Test("a duplicate unique value surfaces as duplicatePrimaryKey and the commit stores nothing")
    func duplicateKey() throws {
        let database = try Database.open(file: InMemoryFile())
        try database.write { transaction in
            let people = transaction.createTable("Person")
            try people.addIndex(on: 0, unique: true)
            try people.insert([.int(1), .string("Ana")])
        }
        let error = #expect(throws: RealmError.self) {
            try RealmError.translating {
                try database.write { transaction in
                    let people = try transaction.table("Person")
                    try people.insert([.int(2), .string("Bo")])
                    try people.insert([.int(1), .string("Cy")])
                }
            }
        }
        #expect(error?.code == .duplicatePrimaryKey)
        let people = try database.snapshot().table("Person")
        #expect(people.count == 1)
        #expect(try people.row(1) == [.int(1), .string("Ana")])
    }

    @Test("every engine error code has a distinct public code")
    func codesAreDistinct() {
        let engineCodes: [StorageError.Code] = [
            .fileCorrupted, .ioError, .diskFull, .fileNotFound, .permissionDenied, .duplicateKey, .readOnly, .noSuchTable, .timedOut, .alreadyOpen, .fileExists,
        ]
        let publicCodes = engineCodes.map { RealmError(StorageError($0, "x")).code }
        #expect(Set(publicCodes).count == engineCodes.count)
    }
}
