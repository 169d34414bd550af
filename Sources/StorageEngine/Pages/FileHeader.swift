import CXXHash

/// The root of a committed version, stored in one of two slots at the start of the file.
///
/// Two slots of 4 KiB start the file: slot 0 at offset 0 and slot 1 at 4096; pages start at
/// 8192. A commit writes its header into the slot that does not hold the header it started
/// from, so that one stays intact while the new one is being written (usually version `v` goes
/// to slot `v % 2`; a group of commits made durable together writes only its last header, so
/// the parity may change). Opening takes the newest
/// slot that passes its checksum *and* whose commit is complete (see `CommitRecord`), so a
/// commit cut short by a crash, whatever subset of its writes reached the disk, falls back to
/// the version before it. A cleanly closed file holds its newest header in both slots.
///
/// Slot layout (little-endian), checksum over bytes [8, 128) seeded with the slot's offset:
///
///     [0, 8)     checksum
///     [8, 16)    magic "AsyncRlm"
///     [16, 20)   format version (3)
///     [20, 24)   flags: bit 0 = the file is encrypted
///     [24, 32)   version
///     [32, 52)   catalog root (PageRef)
///     [52, 72)   free-list page (PageRef)
///     [72, 92)   commit record page (PageRef; null when the pages were synced before the header)
///     [92, 100)  end of used space
///     [100, 108) file id: random, chosen when the file is created and kept by every commit
///                (names the file to its redo log, see `LogEpoch.fingerprint`; 0 in files
///                created before it existed)
///     [108, 128) reserved, zero
///
/// An encrypted file's slot is 192 bytes, its checksum over [8, 192):
///
///     [128, 144) key check (`FileCipher.keyCheck`): tells a wrong key at once
///     [144, 160) MAC: HMAC-SHA-256 of "H", the slot's offset and bytes [8, 144), under the
///                key's authentication half (the first 16 bytes)
///     [160, 192) reserved, zero
package struct FileHeader: Sendable, Equatable {
    package var version: UInt64
    var catalog: PageRef
    var freeList: PageRef
    var commitRecord: PageRef
    package var end: UInt64
    package var fileID: UInt64

    static let slotOffsets: [UInt64] = [0, 4096]
    static let dataStart: UInt64 = 8192
    /// The bytes a plain file's slot uses; an encrypted file's uses `encryptedSlotBytes`.
    static let slotBytes = 128
    static let encryptedSlotBytes = 192
    private static let encryptedFlag: UInt32 = 1
    static let magic: [UInt8] = Array("AsyncRlm".utf8)
    package static let formatVersion: UInt32 = 3

    package init(version: UInt64, catalog: PageRef, freeList: PageRef, commitRecord: PageRef, end: UInt64, fileID: UInt64) {
        self.version = version
        self.catalog = catalog
        self.freeList = freeList
        self.commitRecord = commitRecord
        self.end = end
        self.fileID = fileID
    }

    /// The header of a new, empty database.
    package static let empty = FileHeader(version: 0, catalog: .null, freeList: .null, commitRecord: .null, end: dataStart, fileID: 0)

    /// The header of a new, empty database file, with an id of its own.
    static func newFile() -> FileHeader {
        FileHeader(version: 0, catalog: .null, freeList: .null, commitRecord: .null, end: dataStart, fileID: .random(in: 1...UInt64.max))
    }

    /// The slot a commit writes when the header it started from is in `slot`.
    package static func slot(replacingTheOneBeside slot: Int) -> Int { 1 - slot }

    /// The slot's bytes at `offset`, for a file encrypted with `cipher` (nil for a plain one).
    package func encoded(forSlotAt offset: UInt64, cipher: FileCipher? = nil) -> [UInt8] {
        let length = cipher == nil ? FileHeader.slotBytes : FileHeader.encryptedSlotBytes
        var writer = ByteWriter(capacity: length)
        writer.appendUInt64(0)
        writer.append(contentsOf: FileHeader.magic)
        writer.appendUInt32(FileHeader.formatVersion)
        writer.appendUInt32(cipher == nil ? 0 : FileHeader.encryptedFlag)
        writer.appendUInt64(version)
        catalog.write(to: &writer)
        freeList.write(to: &writer)
        commitRecord.write(to: &writer)
        writer.appendUInt64(end)
        writer.appendUInt64(fileID)
        writer.append(contentsOf: repeatElement(0, count: FileHeader.slotBytes - writer.count))
        if let cipher {
            writer.append(contentsOf: cipher.keyCheck(fileID: fileID))
            let mac = writer.bytes.withUnsafeBytes { FileHeader.mac(of: $0, at: offset, with: cipher) }
            writer.append(contentsOf: mac)
            writer.append(contentsOf: repeatElement(0, count: length - writer.count))
        }
        var bytes = writer.bytes
        let checksum = bytes.withUnsafeBytes { FileHeader.checksum($0, at: offset) }
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: checksum.littleEndian, toByteOffset: 0, as: UInt64.self) }
        return bytes
    }

    /// The checksum of `slot` (128 or 192 bytes, as it is plain or encrypted).
    static func checksum(_ slot: UnsafeRawBufferPointer, at offset: UInt64) -> UInt64 {
        XXH3_64bits_withSeed(slot.baseAddress! + 8, slot.count - 8, offset ^ 0x4153_594E_4352_4C4D)
    }

    /// An encrypted slot's MAC: over "H", its offset and bytes [8, 144).
    private static func mac(of slot: UnsafeRawBufferPointer, at offset: UInt64, with cipher: FileCipher) -> [UInt8] {
        let label = UInt8(ascii: "H")
        let place = offset.littleEndian
        return withUnsafeBytes(of: label) { label in
            withUnsafeBytes(of: place) { offset in
                cipher.tag(of: [label, offset, UnsafeRawBufferPointer(rebasing: slot[8..<144])])
            }
        }
    }

    private enum SlotReading {
        case valid(FileHeader)
        case foreign
        case damaged(String)
        /// Intact, but written in another format version.
        case otherFormat(UInt32)
    }

    /// Reads one slot (`encryptedSlotBytes` read from the file) of a file whose pages `cipher`
    /// decrypts, nil for a plain file.
    ///
    /// - Throws: `invalidEncryptionKey` when a slot that passes its checksum says the file is
    ///   encrypted and there is no key, or is not and there is one, or its key check fails.
    private static func decodeSlot(_ bytes: UnsafeRawBufferPointer, at offset: UInt64, cipher: FileCipher?) throws -> SlotReading {
        guard bytes[8..<16].elementsEqual(magic) else { return .foreign }
        let flags = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
        let isEncrypted = flags & encryptedFlag != 0
        let slot = UnsafeRawBufferPointer(rebasing: bytes[..<(isEncrypted ? encryptedSlotBytes : slotBytes)])
        let recorded = UInt64(littleEndian: slot.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        guard recorded == checksum(slot, at: offset) else { return .damaged("failed its checksum") }
        guard flags & ~encryptedFlag == 0 else { return .damaged("has unknown flags \(flags)") }
        try checkKey(of: slot, at: offset, isEncrypted: isEncrypted, cipher: cipher)
        if let cipher, !mac(of: slot, at: offset, with: cipher).elementsEqual(slot[144..<160]) {
            return .damaged("failed its authentication (it was altered)")
        }
        var reader = ByteReader(slot, position: 16, origin: offset)
        do {
            let format = try reader.readUInt32()
            guard format == formatVersion else { return .otherFormat(format) }
            _ = try reader.readUInt32()
            let version = try reader.readUInt64()
            let catalog = try PageRef.read(from: &reader)
            let freeList = try PageRef.read(from: &reader)
            let record = try PageRef.read(from: &reader)
            let end = try reader.readUInt64()
            let fileID = try reader.readUInt64()
            guard end >= dataStart else { return .damaged("records an impossible end \(end)") }
            return .valid(FileHeader(version: version, catalog: catalog, freeList: freeList, commitRecord: record, end: end, fileID: fileID))
        } catch {
            return .damaged("is truncated")
        }
    }

    /// Throws unless the key (or its absence) fits a slot that passed its checksum.
    private static func checkKey(of slot: UnsafeRawBufferPointer, at offset: UInt64, isEncrypted: Bool, cipher: FileCipher?) throws {
        switch (isEncrypted, cipher) {
        case (false, nil):
            return
        case (true, nil):
            throw StorageError(.invalidEncryptionKey, "the file is encrypted; open it with its 64-byte encryption key")
        case (false, _?):
            throw StorageError(.invalidEncryptionKey, "the file is not encrypted, but an encryption key was given; open it without one (or write an encrypted copy of it)")
        case (true, let cipher?):
            let fileID = UInt64(littleEndian: slot.loadUnaligned(fromByteOffset: 100, as: UInt64.self))
            guard cipher.keyCheck(fileID: fileID).elementsEqual(slot[128..<144]) else {
                throw StorageError(.invalidEncryptionKey, "the encryption key is not the one the file was encrypted with")
            }
        }
    }

    /// Reads the newest header of `file` whose commit is complete.
    ///
    /// - Parameter missingPart: says what of a header's commit did not reach the disk
    ///   (`CommitRecord.missingPart`), nil when all of it did; asked for the newest valid slot first.
    /// - Throws: `fileCorrupted` when the file is too short, is not an AsyncRealm file, or has no
    ///   slot that passes its checksum and completeness check.
    package static func read(
        from file: any FileIO, cipher: FileCipher? = nil, missingPart: (FileHeader) throws -> String?
    ) throws -> (header: FileHeader, slot: Int) {
        // Read first, look at the size only to explain a failed read: this runs at the start
        // of every write transaction, where a system call more is a noticeable part of a
        // small commit. Each slot is read on its own into a buffer on the stack: one read
        // spanning both would need a 4 KiB buffer, which Swift takes from the heap, and large
        // allocations cost more than a read in glibc's malloc.
        let readings = try withUnsafeTemporaryAllocation(byteCount: encryptedSlotBytes, alignment: 8) { slot in
            try slotOffsets.map { offset in
                do {
                    try file.read(into: slot, at: offset)
                } catch {
                    let size = try file.size()
                    guard size >= dataStart else {
                        throw StorageError.corrupted("file is \(size) bytes, shorter than the \(dataStart)-byte header of an AsyncRealm file", at: 0)
                    }
                    throw error
                }
                return try decodeSlot(UnsafeRawBufferPointer(slot), at: offset, cipher: cipher)
            }
        }
        var candidates: [(header: FileHeader, slot: Int)] = []
        var problems: [String] = []
        var foreign = 0
        var otherFormat: UInt32?
        for (slot, (offset, reading)) in zip(slotOffsets, readings).enumerated() {
            switch reading {
            case .valid(let header):
                candidates.append((header, slot))
            case .foreign:
                foreign += 1
                problems.append("header slot at \(offset) lacks the AsyncRealm magic number")
            case .damaged(let reason):
                problems.append("header slot at \(offset) \(reason)")
            case .otherFormat(let format):
                otherFormat = format
                problems.append("header slot at \(offset) has format version \(format)")
            }
        }
        if candidates.isEmpty, let otherFormat { throw unsupportedFormat(otherFormat) }
        for candidate in candidates.sorted(by: { $0.header.version > $1.header.version }) {
            guard let missing = try missingPart(candidate.header) else { return candidate }
            problems.append("the commit of version \(candidate.header.version) is incomplete: \(missing)")
        }
        if foreign == slotOffsets.count {
            throw StorageError.corrupted("not an AsyncRealm database file (no header slot carries the magic number)", at: 0)
        }
        throw StorageError.corrupted("no valid header: " + problems.joined(separator: "; "), at: 0)
    }

    /// The error for a file written in format version `format`: this build reads only its own
    /// (there were no users' files of an older format to convert).
    static func unsupportedFormat(_ format: UInt32) -> StorageError {
        let age = format < formatVersion ? "an older" : "a newer"
        return StorageError(
            .unsupportedFormat,
            "the file has format version \(format), \(age) format than this build of AsyncRealm reads (format version \(formatVersion)); open it with the version that wrote it, or delete it and let the app create it again")
    }

    /// Writes this header into `slot`. The caller orders this against syncs.
    package func write(to file: any FileIO, slot: Int, cipher: FileCipher? = nil) throws {
        let offset = FileHeader.slotOffsets[slot]
        try file.write(encoded(forSlotAt: offset, cipher: cipher), at: offset)
    }

    /// Overwrites `slot` with zeros, so no reader takes what it held.
    static func erase(slot: Int, of file: any FileIO) throws {
        try file.write([UInt8](repeating: 0, count: encryptedSlotBytes), at: slotOffsets[slot])
    }
}
