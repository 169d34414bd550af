import Testing
import TestSupport
@testable import StorageEngine

@Suite("Corruption")
struct CorruptionTests {
    @Test("200 damaged copies either read correctly or throw fileCorrupted", arguments: [false, true])
    func damagedCopies(encrypted: Bool) throws {
        let seed = testSeed()
        let key = testKey(encrypted: encrypted)
        var random = SeededGenerator(seed: seed)
        let (file, expected) = try {
            let (file, database, _) = try FaultInjectionTests.prepare(seed: seed, key: key)
            try FaultInjectionTests.commitChange(database)
            return (file, try contents(of: "t", in: try database.snapshot()))
        }()
        // The last handle is gone: the file was closed cleanly, with both header slots alike.
        let image = file.contents
        var outcomes = ["intact": 0, "corrupted": 0]

        for copy in 0..<200 {
            var damaged = image
            if copy % 4 == 3 {
                damaged.removeLast(Int.random(in: 1...damaged.count, using: &random))
            } else {
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    // Aim half the flips at the headers and the newest pages, where they matter most.
                    let range = copy % 2 == 0 ? 0..<damaged.count : 0..<min(damaged.count, 8192)
                    let position = Int.random(in: range, using: &random)
                    damaged[position] ^= UInt8.random(in: 1...255, using: &random)
                }
            }
            do {
                let opened = try Database.open(file: InMemoryFile(contents: damaged), encryptionKey: key)
                let seen = try contents(of: "t", in: try opened.snapshot())
                #expect(seen == expected, "copy \(copy) read wrong data (seed \(seed))")
                outcomes["intact"]! += 1
            } catch let error as StorageError {
                #expect(error.code == .fileCorrupted, "copy \(copy): \(error) (seed \(seed))")
                outcomes["corrupted"]! += 1
            }
        }
        #expect(outcomes["corrupted"]! > 0, "\(outcomes)")
    }

    @Test("a page moved to another offset fails its checksum")
    func misplacedPage() throws {
        var page = PageCodec.encode(kind: .leaf, raw: [UInt8](repeating: 1, count: 1000))
        let ref = PageCodec.seal(&page, at: 8192)
        let moved = PageRef(offset: 16384, length: ref.length, checksum: ref.checksum)
        try page.withUnsafeBytes { (bytes) throws in
            #expect(try PageCodec.decode(bytes, ref: ref).1 == [UInt8](repeating: 1, count: 1000))
            #expect(throws: StorageError.self) { try PageCodec.decode(bytes, ref: moved) }
        }
    }

    @Test("a foreign file and a short file are refused as corrupted")
    func foreignFiles() throws {
        let foreign = InMemoryFile(contents: Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0, count: 10_000))
        #expect { try Database.open(file: foreign) } throws: { ($0 as? StorageError)?.code == .fileCorrupted }
        let short = InMemoryFile(contents: [1, 2, 3])
        #expect { try Database.open(file: short) } throws: { ($0 as? StorageError)?.code == .fileCorrupted }
    }
}
