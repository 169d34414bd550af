import CXXHash

/// The log a small commit is made durable in (see `Docs/Internals/RedoLog.md`): a header naming a
/// generation, then records appended one after another, each checksummed and chained to the
/// one before, so that reading stops at the first record a crash tore or a former generation
/// left behind.
///
/// Layout, little-endian:
///
///     header, at 0:
///     [0, 8)    magic "ARLMLOG1"
///     [8, 16)   salt: random, new for every generation
///     [16, 24)  base version: the checkpoint the generation's records follow
///     [24, 32)  base fingerprint: names that checkpoint's header in that file (see
///               `LogEpoch.fingerprint`), so a log is replayed only onto the file and version
///               it follows
///     [32, 40)  checksum: XXH3-64 of bytes [0, 32)
///     records, from `recordsStart`, each padded to 8 bytes:
///     [0, 4)    payload length
///     [4, 12)   version: the base version plus the record's position, from 1
///     [12, 20)  salt: the generation's
///     [20, 28)  checksum: XXH3-64 of bytes [0, 20) and the payload, seeded with the previous
///               record's checksum (the header's for the first)
///     [28, ...) payload
///
/// In an encrypted file's log, a record's payload is encrypted and followed by its IV and MAC
/// (`FileCipher`, 32 bytes, counted in the payload length); the MAC covers "L", the
/// generation's salt and the record's version, so a record moved to another place or
/// generation fails it. The checksum covers the encrypted payload.
///
/// A record is read only if its salt is the generation's, its version the next one, and its
/// checksum matches: a torn record, or one left from an earlier generation past the new tail,
/// ends the log. Appending after opening overwrites whatever followed the last good record.
///
/// Every write is of whole blocks (`PosixFile.directAlignment`) from aligned memory, so that
/// the log can be written past the page cache (`PosixFile.isDirect`), which makes a small
/// commit's synced write cheaper for the kernel. An append therefore rewrites the block its
/// record starts in, with the records already there (kept in `staging`) before it and zeros
/// after it. Rewriting those records with the same bytes is what a page-cache write of the
/// block does too: whichever part of a torn write reaches the disk, they read as they were.
///
/// `@unchecked Sendable`: a process's log is used by its writer, under the write lock, only.
package final class RedoLog: @unchecked Sendable {
    package struct Record: Equatable, Sendable {
        package let version: UInt64
        package let payload: [UInt8]

        package init(version: UInt64, payload: [UInt8]) {
            self.version = version
            self.payload = payload
        }
    }

    static let recordsStart: UInt64 = 4096
    static let headerSize = 40
    static let recordHeaderSize = 28
    private static let magic: UInt64 = 0x3147_4F4C_4D4C_5241  // "ARLMLOG1"

    package let file: any FileIO
    /// What encrypts the payloads, in an encrypted file's log.
    let cipher: FileCipher?
    private(set) var salt: UInt64
    private(set) var baseVersion: UInt64
    private(set) var baseFingerprint: UInt64 = 0
    /// The version of the last record, the base version if there is none.
    private(set) var lastVersion: UInt64
    /// Where the next record goes.
    package private(set) var tail: UInt64
    private var lastChecksum: UInt64
    /// Aligned memory the writes are composed in. Between appends, its start holds the bytes
    /// of the tail's block that lie before the tail, when `isTailBlockStaged`.
    private var staging: UnsafeMutableRawBufferPointer
    private var isTailBlockStaged = false
    /// Where the file is known written through (`prepareChunk`).
    private var preparedEnd: UInt64 = 0

    private init(file: any FileIO, cipher: FileCipher?, salt: UInt64, baseVersion: UInt64, headerChecksum: UInt64) {
        self.file = file
        self.cipher = cipher
        self.salt = salt
        self.baseVersion = baseVersion
        self.lastVersion = baseVersion
        self.tail = RedoLog.recordsStart
        self.lastChecksum = headerChecksum
        // At least the header's block, which `startGeneration` writes from it whole.
        staging = .allocate(byteCount: max(4 * RedoLog.block, Int(RedoLog.recordsStart)), alignment: RedoLog.block)
    }

    deinit { staging.deallocate() }

    private static let block = PosixFile.directAlignment
    /// How far ahead of the records the file is written through with zeros, a chunk at a time
    /// (`FileIO.prepareForWriting`): appends then overwrite allocated blocks, as a recycled
    /// SQLite WAL's do, and their syncs have no block allocation to make durable. Readying a
    /// whole epoch's megabyte when the log was created cost a new file's first small commit
    /// about as much as its next thousand.
    static let prepareChunk: UInt64 = 64 << 10

    /// Starts a log in `file` whose records follow `baseVersion`, and makes its header durable.
    package static func create(
        in file: any FileIO, baseVersion: UInt64, baseFingerprint: UInt64 = 0, cipher: FileCipher? = nil
    ) throws -> RedoLog {
        let log = RedoLog(file: file, cipher: cipher, salt: 0, baseVersion: 0, headerChecksum: 0)
        try log.startGeneration(baseVersion: baseVersion, baseFingerprint: baseFingerprint)
        return log
    }

    /// Opens the log in `file` and returns it with its records, or nil if the file holds no
    /// valid header (never written, or its header torn while a new generation started, which
    /// only happens once the old generation's records are all in the database file).
    ///
    /// - Throws: `fileCorrupted` when a record of an encrypted log (`cipher`) is whole but
    ///   fails its MAC: it was altered.
    package static func open(_ file: any FileIO, cipher: FileCipher? = nil) throws -> (RedoLog, [Record])? {
        let size = try file.size()
        guard size >= UInt64(headerSize) else { return nil }
        let header = try file.read(count: headerSize, at: 0)
        let (magic, salt, baseVersion, fingerprint, checksum) = header.withUnsafeBytes { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self).littleEndian,
             bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian,
             bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self).littleEndian,
             bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self).littleEndian,
             bytes.loadUnaligned(fromByteOffset: 32, as: UInt64.self).littleEndian)
        }
        guard magic == RedoLog.magic, checksum == header.withUnsafeBytes({ XXH3_64bits_withSeed($0.baseAddress, 32, 0) }) else {
            return nil
        }
        let log = RedoLog(file: file, cipher: cipher, salt: salt, baseVersion: baseVersion, headerChecksum: checksum)
        log.baseFingerprint = fingerprint
        var records: [Record] = []
        while let record = try log.readRecord(at: log.tail, fileSize: size) {
            records.append(record.record)
            log.lastVersion = record.record.version
            log.lastChecksum = record.checksum
            log.tail = record.next
        }
        return (log, records)
    }

    /// Begins a new generation whose records follow `baseVersion`: a fresh salt, so that every
    /// record already in the file becomes stale. With `sync`, the header is durable when this
    /// returns; without, the first record's durable write makes it durable too. Until then a
    /// crash leaves the former header (whose records are stale once the caller has checkpointed)
    /// or a torn one (no log at all), and either way never a record of this generation.
    func startGeneration(baseVersion: UInt64, baseFingerprint: UInt64 = 0, sync: Bool = true) throws {
        var salt = UInt64.random(in: 1...UInt64.max)
        if salt == self.salt { salt &+= 1 }
        var writer = ByteWriter(capacity: RedoLog.headerSize)
        writer.appendUInt64(RedoLog.magic)
        writer.appendUInt64(salt)
        writer.appendUInt64(baseVersion)
        writer.appendUInt64(baseFingerprint)
        let checksum = writer.bytes.withUnsafeBytes { XXH3_64bits_withSeed($0.baseAddress, 32, 0) }
        writer.appendUInt64(checksum)
        // The header's block is the first (`recordsStart` is where the next one begins).
        isTailBlockStaged = false
        let header = UnsafeMutableRawBufferPointer(rebasing: staging[..<Int(RedoLog.recordsStart)])
        header.initializeMemory(as: UInt8.self, repeating: 0)
        header.copyBytes(from: writer.bytes)
        try file.write(UnsafeRawBufferPointer(header), at: 0)
        if sync { try file.sync() }
        self.salt = salt
        self.baseVersion = baseVersion
        self.baseFingerprint = baseFingerprint
        self.lastVersion = baseVersion
        self.lastChecksum = checksum
        self.tail = RedoLog.recordsStart
    }

    /// Appends a record for `version`, which must follow the last one, and returns once it is
    /// durable, with every record before it. If it cannot be made so, this throws and the log
    /// ends before it, as if it had not been appended: the next record is written over it.
    package func append(version: UInt64, payload: [UInt8]) throws {
        let record = try compose(version: version, payload: payload)
        try file.writeDurably(UnsafeRawBufferPointer(rebasing: staging[..<record.end]), at: record.blockStart)
        advance(past: record)
    }

    /// Where a record composed in `staging` goes: the blocks from `blockStart`, `end` bytes of
    /// `staging`.
    fileprivate struct ComposedRecord {
        let version: UInt64
        let blockStart: UInt64
        let end: Int
        let length: Int
        let checksum: UInt64
    }

    /// Lays out a record for `version` in `staging`, after the bytes of the tail's block that
    /// come before the tail, and pads it with zeros to whole blocks.
    private func compose(version: UInt64, payload: [UInt8]) throws -> ComposedRecord {
        require(version == lastVersion + 1, "redo record \(version) does not follow \(lastVersion); records are appended in version order")
        let blockStart = tail / UInt64(RedoLog.block) * UInt64(RedoLog.block)
        let kept = Int(tail - blockStart)
        let storedCount = payload.count + (cipher == nil ? 0 : FileCipher.overhead)
        let length = RedoLog.recordHeaderSize + storedCount
        let total = (kept + RedoLog.padded(length) + RedoLog.block - 1) / RedoLog.block * RedoLog.block
        if kept > 0 && !isTailBlockStaged { try stageTailBlock(from: blockStart, count: kept) }
        let end = blockStart + UInt64(total)
        if end > preparedEnd {
            let chunkEnd = (end + RedoLog.prepareChunk - 1) / RedoLog.prepareChunk * RedoLog.prepareChunk
            try file.prepareForWriting(RedoLog.recordsStart..<chunkEnd)
            preparedEnd = chunkEnd
        }
        reserveStaging(total, keeping: kept)

        // The checksum covers bytes [0, 20) of the record and its payload: they are laid out
        // together first, 8 bytes on, and hashed in one piece.
        let record = staging.baseAddress! + kept
        payload.withUnsafeBytes { bytes in
            if !bytes.isEmpty { (record + RedoLog.recordHeaderSize).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        }
        if let cipher {
            let body = record + RedoLog.recordHeaderSize
            withAuthenticatedContext(version: version) { context in
                cipher.seal(
                    UnsafeMutableRawBufferPointer(start: body, count: payload.count), context: context,
                    trailer: UnsafeMutableRawBufferPointer(start: body + payload.count, count: FileCipher.overhead))
            }
        }
        func storeFields(at fields: UnsafeMutableRawPointer) {
            fields.storeBytes(of: UInt32(storedCount).littleEndian, as: UInt32.self)
            fields.storeBytes(of: version.littleEndian, toByteOffset: 4, as: UInt64.self)
            fields.storeBytes(of: salt.littleEndian, toByteOffset: 12, as: UInt64.self)
        }
        storeFields(at: record + 8)
        let checksum = XXH3_64bits_withSeed(record + 8, 20 + storedCount, lastChecksum)
        storeFields(at: record)
        record.storeBytes(of: checksum.littleEndian, toByteOffset: 20, as: UInt64.self)
        (record + length).initializeMemory(as: UInt8.self, repeating: 0, count: total - kept - length)
        return ComposedRecord(version: version, blockStart: blockStart, end: total, length: length, checksum: checksum)
    }

    /// Moves the log's end past `record`, now written.
    private func advance(past record: ComposedRecord) {
        tail += UInt64(RedoLog.padded(record.length))
        lastVersion = record.version
        lastChecksum = record.checksum
        // The new tail's block, which the next append rewrites, goes to the front.
        let tailInStaging = Int(tail - record.blockStart)
        let newKept = tailInStaging % RedoLog.block
        if tailInStaging >= RedoLog.block && newKept > 0 {
            staging.baseAddress!.copyMemory(from: staging.baseAddress! + (tailInStaging - newKept), byteCount: newKept)
        }
        isTailBlockStaged = true
    }

    /// Reads the bytes of the tail's block before the tail into `staging`: after opening a log
    /// the memory does not hold them yet.
    private func stageTailBlock(from blockStart: UInt64, count: Int) throws {
        // A direct file reads whole blocks only; any other, no further than the records.
        let read = file.alignment > 1 ? RedoLog.block : count
        try file.read(into: UnsafeMutableRawBufferPointer(rebasing: staging[..<read]), at: blockStart)
        isTailBlockStaged = true
    }

    /// Makes `staging` at least `count` bytes, keeping its first `kept`.
    private func reserveStaging(_ count: Int, keeping kept: Int) {
        guard staging.count < count else { return }
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 2 * staging.count), alignment: RedoLog.block)
        larger.baseAddress!.copyMemory(from: staging.baseAddress!, byteCount: kept)
        staging.deallocate()
        staging = larger
    }

    private func readRecord(at offset: UInt64, fileSize: UInt64) throws -> (record: Record, checksum: UInt64, next: UInt64)? {
        guard offset + UInt64(RedoLog.recordHeaderSize) <= fileSize else { return nil }
        let fields = try file.read(count: RedoLog.recordHeaderSize, at: offset)
        let (length, version, salt, checksum) = fields.withUnsafeBytes { bytes in
            (Int(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian),
             bytes.loadUnaligned(fromByteOffset: 4, as: UInt64.self).littleEndian,
             bytes.loadUnaligned(fromByteOffset: 12, as: UInt64.self).littleEndian,
             bytes.loadUnaligned(fromByteOffset: 20, as: UInt64.self).littleEndian)
        }
        guard salt == self.salt, version == lastVersion + 1,
              offset + UInt64(RedoLog.recordHeaderSize + length) <= fileSize else { return nil }
        let payload = try file.read(count: length, at: offset + UInt64(RedoLog.recordHeaderSize))
        let expected = RedoLog.checksum(fields: Array(fields[..<20]), payload: payload, seed: lastChecksum)
        guard checksum == expected else { return nil }
        return (Record(version: version, payload: try decrypt(payload, version: version, at: offset)), checksum, offset + UInt64(RedoLog.padded(RedoLog.recordHeaderSize + length)))
    }

    /// A whole record's payload as it was appended: decrypted, in an encrypted log.
    private func decrypt(_ stored: [UInt8], version: UInt64, at offset: UInt64) throws -> [UInt8] {
        guard let cipher else { return stored }
        let count = stored.count - FileCipher.overhead
        let payload = try stored.withUnsafeBytes { stored in
            guard count >= 0 else { return nil as [UInt8]? }
            return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                let opened = withAuthenticatedContext(version: version) { context in
                    cipher.open(UnsafeRawBufferPointer(rebasing: stored[..<count]), into: UnsafeMutableRawBufferPointer(buffer),
                                context: context, trailer: UnsafeRawBufferPointer(rebasing: stored[count...]))
                }
                guard opened else { throw StorageError.corrupted("redo log record \(version) failed its authentication: it was altered", at: offset) }
                initialized = count
            }
        }
        guard let payload else { throw StorageError.corrupted("redo log record \(version) is shorter than an encrypted record", at: offset) }
        return payload
    }

    /// What an encrypted record's MAC binds its payload to: "L", the generation's salt and
    /// the record's version.
    private func withAuthenticatedContext<Result>(version: UInt64, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        var context = [UInt8](repeating: UInt8(ascii: "L"), count: 17)
        context.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: salt.littleEndian, toByteOffset: 1, as: UInt64.self)
            bytes.storeBytes(of: version.littleEndian, toByteOffset: 9, as: UInt64.self)
        }
        return context.withUnsafeBytes(body)
    }

    private static func checksum(fields: [UInt8], payload: [UInt8], seed: UInt64) -> UInt64 {
        var covered = fields
        covered.append(contentsOf: payload)
        return covered.withUnsafeBytes { XXH3_64bits_withSeed($0.baseAddress, $0.count, seed) }
    }

    private static func padded(_ length: Int) -> Int { (length + 7) & ~7 }
}
