import Foundation
import Testing
import TestSupport
@testable import StorageEngine

@Suite("Encryption")
struct EncryptionTests {
    static let key = testKey(encrypted: true)!

    /// A key differing from `key` in one byte of the given half.
    static func keyDiffering(inByte index: Int) -> EncryptionKey {
        var bytes = key.bytes
        bytes[index] ^= 1
        return try! EncryptionKey(bytes)
    }

    static func fill(_ database: Database, rows: Int = 500) throws {
        try database.write { transaction in
            let table = transaction.createTable("t")
            for key in 1...UInt64(rows) {
                try table.insert([.string("secret row \(key)"), .int(Int64(key) * 1_000_003), .binary([UInt8](repeating: 7, count: key % 50 == 0 ? 9000 : 20))], forKey: key)
            }
        }
    }

    @Test("a key of another length than 64 bytes is refused with invalidEncryptionKey", arguments: [0, 32, 63, 65, 128])
    func keyLength(length: Int) {
        #expect { try EncryptionKey([UInt8](repeating: 1, count: length)) } throws: { ($0 as? StorageError)?.code == .invalidEncryptionKey }
    }

    @Test("an encrypted file reopens with its key and reads what was written, pages, log and overflow values alike")
    func roundTrip() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("e.realm")
        do {
            let database = try Database.open(path: path, encryptionKey: Self.key)
            try Self.fill(database)
            // Small commits after the bulk one go through the redo log.
            for round in 0..<20 {
                try database.write { try $0.table("t").update(UInt64(round + 1), to: [.string("updated \(round)"), .int(-1), .binary([])]) }
            }
        }
        let reopened = try Database.open(path: path, encryptionKey: Self.key)
        let table = try reopened.snapshot().table("t")
        #expect(table.count == 500)
        #expect(try table.value(3, column: 0) == .string("updated 2"))
        #expect(try table.value(100, column: 2) == .binary([UInt8](repeating: 7, count: 9000)))
        #expect(try spaceAccountingProblem(in: PosixFile(path: path, create: false, readOnly: true), key: Self.key) == nil)
    }

    @Test("a wrong key (in either half), no key, or a key for a plain file throws invalidEncryptionKey at open")
    func wrongKeys() throws {
        let directory = TemporaryDirectory()
        let encrypted = directory.filePath("e.realm")
        let plain = directory.filePath("p.realm")
        try Self.fill(try Database.open(path: encrypted, encryptionKey: Self.key))
        try Self.fill(try Database.open(path: plain))
        func expectInvalidKey(_ path: String, _ key: EncryptionKey?, _ phrase: String) {
            #expect { _ = try Database.open(path: path, encryptionKey: key) } throws: { error in
                guard let error = error as? StorageError else { return false }
                return error.code == .invalidEncryptionKey && error.message.contains(phrase)
            }
        }
        expectInvalidKey(encrypted, Self.keyDiffering(inByte: 5), "not the one")
        expectInvalidKey(encrypted, Self.keyDiffering(inByte: 40), "not the one")
        expectInvalidKey(encrypted, nil, "is encrypted")
        expectInvalidKey(plain, Self.key, "not encrypted")
        // The right key still opens it, and the plain file opens without one.
        #expect(try Database.open(path: encrypted, encryptionKey: Self.key).snapshot().table("t").count == 500)
        #expect(try Database.open(path: plain).snapshot().table("t").count == 500)
    }

    @Test("a file open in this process under one key cannot be opened under another, or none")
    func openUnderAnotherKey() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("e.realm")
        let first = try Database.open(path: path, encryptionKey: Self.key)
        #expect { _ = try Database.open(path: path, encryptionKey: Self.keyDiffering(inByte: 0)) } throws: { ($0 as? StorageError)?.code == .invalidEncryptionKey }
        #expect { _ = try Database.open(path: path) } throws: { ($0 as? StorageError)?.code == .invalidEncryptionKey }
        withExtendedLifetime(first) {}
    }

    @Test("no byte of the file or its log holds a stored string, number or key in the clear")
    func noPlaintext() throws {
        let directory = TemporaryDirectory()
        let path = directory.filePath("e.realm")
        let marker = "plaintext-marker-0123456789"
        let database = try Database.open(path: path, encryptionKey: Self.key)
        try database.write { transaction in
            let table = transaction.createTable("t")
            try table.addIndex(on: 0, unique: true)
            for key in 1...UInt64(200) { try table.insert([.string("\(marker)-\(key)"), .int(0x5EC2E7_5EC2E7)], forKey: key) }
            _ = transaction.createTable("u")
        }
        // Logged commits (rows of a table without indexes), kept in the log while the handle is open.
        for key in 1...UInt64(5) {
            try database.write { try $0.table("u").insert([.string("\(marker)-logged"), .int(0x5EC2E7_5EC2E7)], forKey: key) }
        }
        #expect(database.shared.epoch.withLock { $0?.commits } == 5)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).map { directory.filePath($0) }
        #expect(files.contains(path + ".log"))
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(!contains(bytes, Array(marker.utf8)), "\(file) holds a stored string in the clear")
            #expect(!contains(bytes, withUnsafeBytes(of: Int64(0x5EC2E7_5EC2E7).littleEndian, Array.init)), "\(file) holds a stored number in the clear")
        }
        withExtendedLifetime(database) {}
    }

    @Test("a page whose ciphertext was altered, its checksums made to match, throws instead of decrypting")
    func tamperedPage() throws {
        let cipher = FileCipher(key: Self.key)
        let raw = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        for compress in [false, true] {
            var page = PageCodec.encode(kind: .leaf, raw: raw, compress: compress)
            let ref = PageCodec.seal(&page, at: 8192, cipher: cipher)
            #expect(try decode(page, ref, cipher) == raw)
            // Every region: header field, ciphertext, IV, MAC.
            for position in [12, PageCodec.headerSize + 5, page.count - 30, page.count - 3] {
                var altered = page
                altered[position] ^= 0x40
                let checksum = altered.withUnsafeBytes { PageCodec.checksumOf($0, at: 8192) }
                altered.withUnsafeMutableBytes { $0.storeBytes(of: checksum.littleEndian, toByteOffset: 0, as: UInt64.self) }
                let forged = PageRef(offset: 8192, length: ref.length, checksum: checksum)
                #expect { try decode(altered, forged, cipher) } throws: { ($0 as? StorageError)?.code == .fileCorrupted }
            }
            // Moved to another offset, checksum fixed up: the MAC binds the offset.
            let movedChecksum = page.withUnsafeBytes { PageCodec.checksumOf($0, at: 16384) }
            var moved = page
            moved.withUnsafeMutableBytes { $0.storeBytes(of: movedChecksum.littleEndian, toByteOffset: 0, as: UInt64.self) }
            #expect(throws: StorageError.self) { try decode(moved, PageRef(offset: 16384, length: ref.length, checksum: movedChecksum), cipher) }
        }
    }

    @Test("sealing the same page at the same offset twice uses two IVs: no keystream is reused")
    func freshIVs() {
        let cipher = FileCipher(key: Self.key)
        let raw = [UInt8](repeating: 0x41, count: 500)
        var seen: Set<[UInt8]> = []
        var bodies: Set<[UInt8]> = []
        for _ in 0..<1000 {
            var page = PageCodec.encode(kind: .leaf, raw: raw, compress: false)
            _ = PageCodec.seal(&page, at: 8192, cipher: cipher)
            seen.insert(Array(page[(page.count - 32)..<(page.count - 16)]))
            bodies.insert(Array(page[PageCodec.headerSize..<(PageCodec.headerSize + 500)]))
        }
        #expect(seen.count == 1000)
        #expect(bodies.count == 1000)
        // Another cipher (another process, another open) draws another session prefix.
        var other = PageCodec.encode(kind: .leaf, raw: raw, compress: false)
        _ = PageCodec.seal(&other, at: 8192, cipher: FileCipher(key: Self.key))
        #expect(!seen.contains(Array(other[(other.count - 32)..<(other.count - 16)])))
    }

    @Test("a log record altered with its checksum chain made to match throws instead of being replayed")
    func tamperedLogRecord() throws {
        let cipher = FileCipher(key: Self.key)
        let file = InMemoryFile()
        let log = try RedoLog.create(in: file, baseVersion: 0, cipher: cipher)
        let payloads = (1...3).map { [UInt8](repeating: UInt8($0), count: 100) }
        for (position, payload) in payloads.enumerated() { try log.append(version: UInt64(position + 1), payload: payload) }
        let (_, records) = try #require(try RedoLog.open(InMemoryFile(contents: file.contents), cipher: cipher))
        #expect(records.map(\.payload) == payloads)
        #expect(!contains(file.contents, payloads[1]))

        // Alter the first record's payload and recompute every checksum of the chain.
        var image = file.contents
        let start = Int(RedoLog.recordsStart)
        image[start + RedoLog.recordHeaderSize + 10] ^= 1
        var seed = image.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 32, as: UInt64.self).littleEndian }
        var offset = start
        for _ in payloads {
            let length = Int(image.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian })
            var covered = Array(image[offset..<(offset + 20)])
            covered += image[(offset + RedoLog.recordHeaderSize)..<(offset + RedoLog.recordHeaderSize + length)]
            seed = covered.withUnsafeBytes { XXH3Seeded($0, seed) }
            image.withUnsafeMutableBytes { $0.storeBytes(of: seed.littleEndian, toByteOffset: offset + 20, as: UInt64.self) }
            offset += (RedoLog.recordHeaderSize + length + 7) & ~7
        }
        #expect { _ = try RedoLog.open(InMemoryFile(contents: image), cipher: cipher) } throws: { ($0 as? StorageError)?.code == .fileCorrupted }
    }

    @Test("a header slot altered with its checksum made to match is not taken: the other slot is")
    func tamperedHeader() throws {
        let cipher = FileCipher(key: Self.key)
        let header = FileHeader(version: 9, catalog: .null, freeList: .null, commitRecord: .null, end: FileHeader.dataStart, fileID: 77)
        let file = InMemoryFile()
        try FileHeader(version: 8, catalog: .null, freeList: .null, commitRecord: .null, end: FileHeader.dataStart, fileID: 77).write(to: file, slot: 0, cipher: cipher)
        try header.write(to: file, slot: 1, cipher: cipher)
        try file.truncate(to: FileHeader.dataStart)
        #expect(try FileHeader.read(from: file, cipher: cipher) { _ in nil }.header.version == 9)
        var image = file.contents
        let slot = Int(FileHeader.slotOffsets[1])
        image[slot + 92] ^= 0x10  // the end of used space
        let checksum = image[slot..<(slot + FileHeader.encryptedSlotBytes)].withUnsafeBytes {
            XXH3Seeded(UnsafeRawBufferPointer(rebasing: $0[8...]), UInt64(slot) ^ 0x4153_594E_4352_4C4D)
        }
        image.withUnsafeMutableBytes { $0.storeBytes(of: checksum.littleEndian, toByteOffset: slot, as: UInt64.self) }
        #expect(try FileHeader.read(from: InMemoryFile(contents: image), cipher: cipher) { _ in nil }.header.version == 8)
    }

    private func decode(_ page: [UInt8], _ ref: PageRef, _ cipher: FileCipher) throws -> [UInt8] {
        try page.withUnsafeBytes { try PageCodec.decode($0, ref: ref, cipher: cipher).1 }
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBytes { bytes in
            var start = bytes.baseAddress!
            let end = bytes.baseAddress! + (bytes.count - needle.count + 1)
            while start < end {
                guard let found = memchr(start, Int32(needle[0]), end - start) else { return false }
                if memcmp(found, needle, needle.count) == 0 { return true }
                start = UnsafeRawPointer(found) + 1
            }
            return false
        }
    }
}

import CXXHash

private func XXH3Seeded(_ bytes: UnsafeRawBufferPointer, _ seed: UInt64) -> UInt64 {
    XXH3_64bits_withSeed(bytes.baseAddress, bytes.count, seed)
}
