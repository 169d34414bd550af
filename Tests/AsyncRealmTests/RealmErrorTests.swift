import Testing
import StorageEngine
@testable import AsyncRealm

@Suite("Errors reaching users")
struct RealmErrorTests {
    @Test("a corrupted file surfaces as fileCorrupted with the engine's message and offset")
    func corruptedFile() throws {
        let file = InMemoryFile(contents: Array("not a realm".utf8) + [UInt8](repeating: 0, count: 9000))
        let error = #expect(throws: RealmError.self) {
            try RealmError.translating { try Database.open(file: file) }
        }
        #expect(error?.code == .fileCorrupted)
        #expect(error?.message.contains("not an AsyncRealm database") == true)
        #expect(error?.offset == 0)
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
            .fileCorrupted, .ioError, .diskFull, .fileNotFound, .permissionDenied, .duplicateKey, .readOnly, .noSuchTable,
        ]
        let publicCodes = engineCodes.map { RealmError(StorageError($0, "x")).code }
        #expect(Set(publicCodes).count == engineCodes.count)
    }
}
