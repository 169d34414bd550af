import Foundation
import Testing
import TestSupport
@testable import StorageEngine
@testable import AsyncRealm

@Suite("Realm files: deleting and looking for them")
struct RealmFilesTests {
    @Test("deleteFiles removes the file and the files beside it, once no handle has it open; fileExists follows")
    func deleteFiles() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Dog.self])
        #expect(!Realm.fileExists(for: configuration))
        #expect(try Realm.deleteFiles(for: configuration) == false)
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(Dog()) }
            #expect(Realm.fileExists(for: configuration))
            let error = #expect(throws: RealmError.self) { try Realm.deleteFiles(for: configuration) }
            #expect(error?.code == .alreadyOpen)
            #expect(realm.objects(Dog.self).count == 1)
        }
        #expect(try Realm.deleteFiles(for: configuration) == true)
        #expect(!Realm.fileExists(for: configuration))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left.isEmpty, "files left: \(left)")
        #expect(try Realm(configuration: configuration).isEmpty)
    }

    @Test("a frozen value keeps the file open")
    func frozenKeepsOpen() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), objectTypes: [Dog.self])
        let frozen: Realm
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(Dog()) }
            frozen = realm.freeze()
        }
        let error = #expect(throws: RealmError.self) { try Realm.deleteFiles(for: configuration) }
        #expect(error?.code == .alreadyOpen)
        #expect(frozen.objects(Dog.self).count == 1)
    }

    @Test("an in-memory realm has no file")
    func inMemory() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "files-\(UUID())")
        let realm = try Realm(configuration: configuration)
        #expect(!Realm.fileExists(for: configuration))
        #expect(try Realm.deleteFiles(for: configuration) == false)
        #expect(realm.isEmpty)
    }

    @Test("writeCopy writes a compacted copy with the same schema, version, objects, links and lists; new objects get new keys")
    func writeCopy() throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.file(), schemaVersion: 4, objectTypes: [Person.self, Dog.self])
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for index in 0..<3000 {
                let person = realm.create(Person.self, value: ["id": index, "name": "person \(index) " + String(repeating: "x", count: 60)])
                if index % 500 == 0 { person.dogs.append(realm.create(Dog.self, value: ["name": "dog \(index)"])) }
            }
        }
        try realm.write { realm.delete(realm.objects(Person.self).filter("id >= 100")) }
        let copyURL = directory.file("copy.realm")
        try realm.writeCopy(toFile: copyURL)
        let original = try FileManager.default.attributesOfItem(atPath: directory.file().path)[.size] as! Int
        let copied = try FileManager.default.attributesOfItem(atPath: copyURL.path)[.size] as! Int
        #expect(copied < original / 2, "the copy (\(copied) bytes) holds only the live objects of the original (\(original))")
        #expect(try schemaVersionAtURL(copyURL) == 4)
        let copy = try Realm(configuration: Realm.Configuration(fileURL: copyURL, schemaVersion: 4, objectTypes: [Person.self, Dog.self]))
        #expect(copy.schema == realm.schema)
        #expect(copy.objects(Person.self).count == 100)
        #expect(copy.object(ofType: Person.self, forPrimaryKey: 0)?.dogs.first?.name == "dog 0")
        #expect(copy.objects(Dog.self).filter("name == 'dog 0'").first?.owners.first?.id == 0)
        #expect(copy.objects(Person.self).filter("name BEGINSWITH 'person 9'").count == 11)
        // Keys are never reused: the copy hands out the keys the original would.
        let next = try #require(try realm.snapshot().roots(ofTable: "class_Person")?.nextKey)
        #expect(try copy.snapshot().roots(ofTable: "class_Person")?.nextKey == next)
        let duplicate = #expect(throws: RealmError.self) {
            try copy.write { copy.create(Person.self, value: ["id": 5]) }
        }
        #expect(duplicate?.code == .duplicatePrimaryKey, "the copy's primary key index is unique")
    }

    @Test("writeCopy refuses an existing destination, and copies a write transaction's changes and an in-memory realm")
    func writeCopyCases() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "copy-\(UUID())", objectTypes: [Dog.self]))
        try realm.write { realm.add(Dog(value: ["name": "committed"])) }
        let taken = directory.file("taken.realm")
        _ = FileManager.default.createFile(atPath: taken.path, contents: Data([1]))
        let exists = #expect(throws: RealmError.self) { try realm.writeCopy(toFile: taken) }
        #expect(exists?.code == .fileExists)
        #expect(try Data(contentsOf: taken) == Data([1]))
        realm.beginWrite()
        realm.add(Dog(value: ["name": "in the write"]))
        try realm.writeCopy(toFile: directory.file("during.realm"))
        realm.cancelWrite()
        let copy = try Realm(configuration: Realm.Configuration(fileURL: directory.file("during.realm"), objectTypes: [Dog.self]))
        #expect(Set(copy.objects(Dog.self).map(\.name)) == ["committed", "in the write"])
        #expect(realm.objects(Dog.self).count == 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("copying") }
        #expect(left.isEmpty, "files left: \(left)")
    }

    @Test("writeCopy into a directory that does not exist throws fileNotFound naming the destination, and creates nothing")
    func writeCopyToMissingDirectory() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.file(), objectTypes: [Dog.self]))
        try realm.write { realm.add(Dog(value: ["name": "rex"])) }
        let destination = directory.file("missing/copy.realm")
        let error = #expect(throws: RealmError.self) { try realm.writeCopy(toFile: destination) }
        #expect(error?.code == .fileNotFound)
        #expect(error?.localizedDescription.contains("'\(destination.path)'") == true, "\(String(describing: error))")
        #expect(error?.localizedDescription.contains("lock") == false, "the message names the user's file, not ours")
        #expect(!FileManager.default.fileExists(atPath: directory.file("missing").path))
    }

    @Test("shouldCompactOnLaunch is asked on the first open in the process with (file size, bytes used); true compacts the file, keeping every object")
    func compactOnLaunch() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Person.self, Dog.self]))
            try realm.write {
                for index in 0..<5000 { realm.create(Person.self, value: ["id": index, "name": String(repeating: "n", count: 100)]) }
            }
            try realm.write { realm.delete(realm.objects(Person.self).filter("id >= 50")) }
        }
        let before = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
        let asked = Locked<[(Int, Int)]>([])
        let configuration = Realm.Configuration(fileURL: url, shouldCompactOnLaunch: { total, used in
            asked.withLock { $0.append((total, used)) }
            return used < total / 2
        }, objectTypes: [Person.self, Dog.self])
        let realm = try Realm(configuration: configuration)
        let second = try Realm(configuration: configuration)
        let calls = asked.withLock { $0 }
        #expect(calls.count == 1, "asked once, on the first open: \(calls.count)")
        #expect(calls.first?.0 == before)
        #expect((calls.first?.1 ?? .max) < before / 2)
        let after = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
        #expect(after < before / 2, "\(after) bytes, \(before) before")
        #expect(realm.objects(Person.self).count == 50)
        #expect(second.object(ofType: Person.self, forPrimaryKey: 49)?.name.count == 100)
        try realm.write { realm.create(Person.self, value: ["id": 10_000]) }
        second.refresh()
        #expect(second.objects(Person.self).count == 51)
    }
}

@Suite("Seed files: Configuration.seedFilePath")
struct SeedFileTests {
    static let key = Data((0..<64).map { UInt8($0 * 3 % 256) })

    /// A realm at `url` holding dogs named `names`, still open (its last commits may be in its
    /// redo log only) while `body` runs.
    static func withSeed(at url: URL, key: Data? = nil, names: [String], _ body: () throws -> Void) throws {
        let seed = try Realm(configuration: Realm.Configuration(fileURL: url, encryptionKey: key, schemaVersion: 3, objectTypes: [Person.self, Dog.self]))
        try seed.write { for name in names { seed.add(Dog(value: ["name": name])) } }
        try body()
    }

    @Test("a missing file is made from the seed, which stays as it was; an existing file is kept")
    func seeds() throws {
        let directory = TemporaryDirectory()
        let seedURL = directory.file("seed.realm")
        let url = directory.file("app.realm")
        let configuration = Realm.Configuration(fileURL: url, schemaVersion: 3, objectTypes: [Person.self, Dog.self], seedFilePath: seedURL)
        try Self.withSeed(at: seedURL, names: ["Rex", "Fido"]) {
            let realm = try Realm(configuration: configuration)
            #expect(Set(realm.objects(Dog.self).map(\.name)) == ["Rex", "Fido"])
            #expect(try schemaVersionAtURL(url) == 3)
            try realm.write { realm.add(Dog(value: ["name": "Own"])) }
        }
        let seed = try Realm(configuration: Realm.Configuration(fileURL: seedURL, schemaVersion: 3, objectTypes: [Person.self, Dog.self]))
        #expect(seed.objects(Dog.self).count == 2)
        // The file exists now: opening again keeps it, with what was written since.
        try seed.write { seed.add(Dog(value: ["name": "Later"])) }
        let again = try Realm(configuration: configuration)
        #expect(Set(again.objects(Dog.self).map(\.name)) == ["Rex", "Fido", "Own"])
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("copying") }
        #expect(left.isEmpty, "files left: \(left)")
    }

    @Test("an encrypted seed is read and written with the configuration's key; a missing seed throws fileNotFound and makes no file")
    func encryptedAndMissing() throws {
        let directory = TemporaryDirectory()
        let seedURL = directory.file("seed.realm")
        let url = directory.file("app.realm")
        try Self.withSeed(at: seedURL, key: Self.key, names: ["Rex"]) {
            let realm = try Realm(configuration: Realm.Configuration(
                fileURL: url, encryptionKey: Self.key, schemaVersion: 3, objectTypes: [Person.self, Dog.self], seedFilePath: seedURL))
            #expect(realm.objects(Dog.self).first?.name == "Rex")
        }
        let plain = Realm.Configuration(fileURL: url, schemaVersion: 3, objectTypes: [Person.self, Dog.self])
        let wrongKey = #expect(throws: RealmError.self) { try Realm(configuration: plain) }
        #expect(wrongKey?.code == .invalidEncryptionKey, "the copy is encrypted")
        let other = directory.file("other.realm")
        let missing = #expect(throws: RealmError.self) {
            try Realm(configuration: Realm.Configuration(fileURL: other, objectTypes: [Dog.self], seedFilePath: directory.file("none.realm")))
        }
        #expect(missing?.code == .fileNotFound)
        #expect(!FileManager.default.fileExists(atPath: other.path))
    }
}

@Suite("A seed file on a read-only file system")
struct ReadOnlyFileSystemTests {
    @Test("a readOnly realm on a read-only file system opens and reads without creating a lock or log file; writing throws")
    func seedFile() throws {
        let directory = TemporaryDirectory()
        let seed = directory.file("seed.realm")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: seed, objectTypes: [Person.self, Dog.self]))
            try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Ada", "dogs": [["name": "Rex"]]]) }
        }
        let readOnly = try #require(ReadOnlyDirectory(copying: [seed]), "no read-only directory could be made here")
        let url = readOnly.file("seed.realm")
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true, objectTypes: [Person.self, Dog.self]))
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.dogs.first?.name == "Rex")
        #expect(realm.objects(Dog.self).filter("name == 'Rex'").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly.url.path) == ["seed.realm"])
        let error = #expect(throws: RealmError.self) { try realm.write { realm.create(Dog.self, value: ["name": "Fido"]) } }
        #expect(error?.code == .readOnly)
        let writable = #expect(throws: RealmError.self) {
            try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Person.self, Dog.self]))
        }
        #expect(writable?.code == .filePermissionDenied)
    }
}
