import Foundation
import Testing
import TestSupport
import AsyncRealm

// The example of Docs/Encryption.md, compiled and run.
@Suite("Encryption guide")
struct EncryptionGuideTests {
    @Test("the guide's example: a fresh key, an encrypted realm, a refused open, a re-keyed copy")
    func guide() throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        let copyURL = directory.file("copy.realm")
        let newKey = Data(repeating: 7, count: 64)

        // 64 bytes from the system's secure random source (getrandom(2) on Linux).
        var generator = SystemRandomNumberGenerator()
        let key = Data((0..<64).map { _ in UInt8.random(in: .min ... .max, using: &generator) })

        let configuration = Realm.Configuration(fileURL: url, encryptionKey: key, objectTypes: [Dog.self])
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(Dog(value: ["name": "Rex"])) }

        // Another key, or none, is refused before anything is read.
        do {
            _ = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Dog.self]))
        } catch let error as Realm.Error where error.code == .invalidEncryptionKey {
            print(error.message)  // says which: another key, no key, a key for a plain file...
        }

        // A copy under a new key (or plain, with nil).
        try realm.writeCopy(toFile: copyURL, encryptionKey: newKey)

        #expect { try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Dog.self])) } throws: {
            ($0 as? Realm.Error)?.code == .invalidEncryptionKey
        }
        let copy = try Realm(configuration: Realm.Configuration(fileURL: copyURL, encryptionKey: newKey, objectTypes: [Dog.self]))
        #expect(copy.objects(Dog.self).first?.name == "Rex")
    }
}
