import Foundation
import Testing
import TestSupport
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
}
