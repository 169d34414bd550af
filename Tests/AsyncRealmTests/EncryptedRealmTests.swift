import Foundation
import Testing
import TestSupport
@testable import AsyncRealm

@Suite("Encrypted realms")
struct EncryptedRealmTests {
    static let key = Data(testEncryptionKeyBytes)
    static let otherKey = Data(testEncryptionKeyBytes.reversed())

    static func configuration(_ url: URL, key: Data?) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, encryptionKey: key, objectTypes: [Person.self, Dog.self])
    }

    @Test("an encrypted realm reopens with its key; another key, a key of another length, no key, or a key for a plain realm throws invalidEncryptionKey and deletes nothing")
    func keys() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        do {
            let realm = try Realm(configuration: Self.configuration(url, key: Self.key))
            try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Ada"]) }
        }
        for (key, phrase) in [(Self.otherKey, "not the one"), (nil, "is encrypted"), (Data(count: 63), "64 bytes")] {
            var configuration = Self.configuration(url, key: key)
            configuration.deleteRealmIfMigrationNeeded = true
            let error = #expect(throws: RealmError.self) { try Realm(configuration: configuration) }
            #expect(error?.code == .invalidEncryptionKey)
            #expect(error?.message.contains(phrase) == true, "\(String(describing: error))")
        }
        let realm = try Realm(configuration: Self.configuration(url, key: Self.key))
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name == "Ada")
        #expect(try schemaVersionAtURL(url, encryptionKey: Self.key) == 0)
        #expect(throws: RealmError.self) { try schemaVersionAtURL(url) }

        let plain = directory.file("plain.realm")
        _ = try Realm(configuration: Self.configuration(plain, key: nil))
        let error = #expect(throws: RealmError.self) { try Realm(configuration: Self.configuration(plain, key: Self.key)) }
        #expect(error?.code == .invalidEncryptionKey)
        #expect(error?.message.contains("not encrypted") == true)
    }

    @Test("no file the realm leaves on disk (file, log, lock, an encrypted copy) holds a stored string, number or primary key in the clear")
    func noPlaintext() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        let name = "Plaintext Needle Name"
        let primaryKey = 0x5EC2_E7C0_FFEE_1234
        let age = 0x0BAD_F00D_1234_5678
        let realm = try Realm(configuration: Self.configuration(url, key: Self.key))
        try realm.write {
            for index in 0..<300 {
                let person = realm.create(Person.self, value: ["id": primaryKey + index, "name": "\(name) \(index)", "age": age])
                if index % 10 == 0 { person.dogs.append(realm.create(Dog.self, value: ["name": "\(name) dog \(index)"])) }
            }
        }
        // Small commits, which go to the redo log while the realm is open.
        for index in 0..<5 {
            try realm.write { realm.object(ofType: Person.self, forPrimaryKey: primaryKey + index)!.name = "\(name) renamed \(index)" }
        }
        try realm.writeCopy(toFile: directory.file("copy.realm"), encryptionKey: Self.otherKey)
        let needles: [(String, [UInt8])] = [
            ("a name", Array(name.utf8)),
            ("a primary key", withUnsafeBytes(of: Int64(primaryKey + 7).littleEndian, Array.init)),
            ("a number", withUnsafeBytes(of: Int64(age).littleEndian, Array.init)),
            ("a class name", Array("Person".utf8)),
        ]
        func search() throws {
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.count >= 3, "\(files)")
            for file in files {
                let bytes = try [UInt8](Data(contentsOf: directory.file(file)))
                for (what, needle) in needles {
                    #expect(!bytes.contains(needle), "\(file) holds \(what) in the clear")
                }
            }
        }
        #expect(FileManager.default.fileExists(atPath: url.path + ".log"))
        try search()
        withExtendedLifetime(realm) {}
        try search()
        let copy = try Realm(configuration: Self.configuration(directory.file("copy.realm"), key: Self.otherKey))
        #expect(copy.objects(Person.self).count == 300)
        #expect(copy.object(ofType: Person.self, forPrimaryKey: primaryKey + 2)?.name == "\(name) renamed 2")
    }

    @Test("writeCopy changes a realm's key, encrypts a plain realm and decrypts an encrypted one")
    func copiesChangeKeys() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: Self.configuration(directory.file(), key: nil))
        try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Ada", "dogs": [["name": "Rex"]]]) }
        try realm.writeCopy(toFile: directory.file("encrypted.realm"), encryptionKey: Self.key)
        let encrypted = try Realm(configuration: Self.configuration(directory.file("encrypted.realm"), key: Self.key))
        try encrypted.writeCopy(toFile: directory.file("rekeyed.realm"), encryptionKey: Self.otherKey)
        try encrypted.writeCopy(toFile: directory.file("decrypted.realm"))
        for (file, key) in [("rekeyed.realm", Self.otherKey), ("decrypted.realm", nil)] {
            let copy = try Realm(configuration: Self.configuration(directory.file(file), key: key))
            #expect(copy.object(ofType: Person.self, forPrimaryKey: 1)?.dogs.first?.name == "Rex", "\(file)")
        }
        let wrongLength = #expect(throws: RealmError.self) { try realm.writeCopy(toFile: directory.file("short.realm"), encryptionKey: Data(count: 16)) }
        #expect(wrongLength?.code == .invalidEncryptionKey)
        #expect(!FileManager.default.fileExists(atPath: directory.file("short.realm").path))
    }
}

private extension Array where Element == UInt8 {
    func contains(_ needle: [UInt8]) -> Bool {
        guard count >= needle.count else { return false }
        return (0...(count - needle.count)).contains { start in self[start] == needle[0] && self[start..<(start + needle.count)].elementsEqual(needle) }
    }
}
