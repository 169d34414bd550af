import CLZ4
import CXXHash

/// What a page holds; stored in its header so a reader can tell a misplaced page from the one it wanted.
package enum PageKind: UInt8, Sendable {
    case leaf = 1
    case branch = 2
    case overflow = 3
    case catalog = 4
    case freeList = 5
    case commitRecord = 6
}

/// Turns a page's raw body into its stored form and back (invariants 3 and 4).
///
/// Stored layout, little-endian:
///
///     [0, 8)    checksum: XXH3-64 of bytes [8, end), seeded with the page's file offset
///     8         kind (PageKind)
///     9         flags: bit 0 = body is LZ4-compressed, bit 1 = body is encrypted
///     [10, 12)  reserved, zero
///     [12, 16)  raw length: body length after decompression
///     [16, 20)  stored length: body length as stored
///     [20, 24)  reserved, zero
///     [24, ...) body
///
/// In an encrypted file the body (compressed first) is encrypted and followed by a 32-byte
/// trailer, its IV and MAC (`FileCipher`); the MAC covers the page's offset, the header's
/// bytes [8, 24), the ciphertext and the IV, and the checksum covers the trailer too. The
/// stored length counts the ciphertext only.
///
/// The body is compressed only when that saves at least an eighth of it, so incompressible pages
/// cost no decompression on the read path.
package enum PageCodec {
    static let headerSize = 24
    private static let compressedFlag: UInt8 = 1
    private static let encryptedFlag: UInt8 = 2

    /// What a stored page adds to its encoded body: the header, and in a file encrypted with
    /// `cipher` the IV and MAC that follow the body.
    package static func overhead(cipher: FileCipher?) -> Int {
        headerSize + (cipher == nil ? 0 : FileCipher.overhead)
    }

    /// The stored form of `raw`, with the checksum left zero until `seal(_:at:)` knows the offset.
    package static func encode(kind: PageKind, raw: UnsafeRawBufferPointer, compress: Bool = true) -> [UInt8] {
        let rawCount = raw.count
        let bound = Int(LZ4_compressBound(Int32(rawCount)))
        var bodyCount = 0
        var flags: UInt8 = 0
        // Uninitialised: every byte kept is written below (header fields, reserved zeros, body)
        // and the rest is cut off, so zero-filling the worst-case size first would be wasted.
        let stored = [UInt8](unsafeUninitializedCapacity: headerSize + max(bound, rawCount)) { buffer, initialized in
            let page = UnsafeMutableRawBufferPointer(buffer)
            page.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: headerSize)
            let body = page.baseAddress! + headerSize
            var compressed: Int32 = 0
            if compress && rawCount >= 64 {
                compressed = CompressionStates.withState { state in
                    // A new stream on a state already initialised: one block, no dictionary.
                    LZ4_resetStream_fast(state)
                    return LZ4_compress_fast_continue(
                        state, raw.baseAddress!.assumingMemoryBound(to: CChar.self),
                        body.assumingMemoryBound(to: CChar.self), Int32(rawCount), Int32(bound), 1)
                }
            }
            if compressed > 0 && Int(compressed) <= rawCount - rawCount / 8 {
                bodyCount = Int(compressed)
                flags = compressedFlag
            } else {
                if rawCount > 0 { body.copyMemory(from: raw.baseAddress!, byteCount: rawCount) }
                bodyCount = rawCount
            }
            page[8] = kind.rawValue
            page[9] = flags
            page.storeBytes(of: UInt32(rawCount).littleEndian, toByteOffset: 12, as: UInt32.self)
            page.storeBytes(of: UInt32(bodyCount).littleEndian, toByteOffset: 16, as: UInt32.self)
            initialized = headerSize + bodyCount
        }
        return stored
    }

    package static func encode(kind: PageKind, raw: [UInt8], compress: Bool = true) -> [UInt8] {
        raw.withUnsafeBytes { encode(kind: kind, raw: $0, compress: compress) }
    }

    /// Whether `stored`, a page `encode` made, holds its body compressed.
    static func isCompressed(_ stored: [UInt8]) -> Bool {
        stored[9] & compressedFlag != 0
    }

    /// An uncompressed page whose body `body` writes straight after the header: what
    /// `encode(kind:raw:compress: false)` gives, built in one buffer instead of a body and a
    /// copy of it (a small commit writes several such pages, and large allocations are slow
    /// in glibc's malloc). `capacity` is the body's expected size.
    static func encodeUncompressed(kind: PageKind, capacity: Int, body: (inout ByteWriter) -> Void) -> [UInt8] {
        var writer = ByteWriter(capacity: headerSize + capacity)
        writer.append(contentsOf: repeatElement(0, count: headerSize))
        body(&writer)
        let rawCount = UInt32(writer.count - headerSize)
        writer.bytes.withUnsafeMutableBytes { page in
            page[8] = kind.rawValue
            page.storeBytes(of: rawCount.littleEndian, toByteOffset: 12, as: UInt32.self)
            page.storeBytes(of: rawCount.littleEndian, toByteOffset: 16, as: UInt32.self)
        }
        return writer.bytes
    }

    /// The same for a body of at most `maximum` bytes written through an `UnsafeByteWriter`.
    static func encodeUncompressed(kind: PageKind, maximum: Int, body: (inout UnsafeByteWriter) -> Void) -> [UInt8] {
        var page = UnsafeByteWriter.bytes(maximum: maximum, prefix: headerSize, body)
        let rawCount = UInt32(page.count - headerSize)
        page.withUnsafeMutableBytes { page in
            page[8] = kind.rawValue
            page.storeBytes(of: rawCount.littleEndian, toByteOffset: 12, as: UInt32.self)
            page.storeBytes(of: rawCount.littleEndian, toByteOffset: 16, as: UInt32.self)
        }
        return page
    }

    /// Encrypts a page about to be stored at `offset` when the file has a `cipher` (the page
    /// grows by `FileCipher.overhead`), writes its checksum and returns its reference.
    static func seal(_ stored: inout [UInt8], at offset: UInt64, cipher: FileCipher? = nil) -> PageRef {
        if let cipher { encrypt(&stored, at: offset, with: cipher) }
        let checksum = stored.withUnsafeBytes { checksumOf($0, at: offset) }
        stored.withUnsafeMutableBytes { $0.storeBytes(of: checksum.littleEndian, toByteOffset: 0, as: UInt64.self) }
        return PageRef(offset: offset, length: UInt32(stored.count), checksum: checksum)
    }

    private static func encrypt(_ stored: inout [UInt8], at offset: UInt64, with cipher: FileCipher) {
        require(stored[9] & encryptedFlag == 0, "a page is sealed once")
        let bodyEnd = stored.count
        stored.append(contentsOf: repeatElement(0, count: FileCipher.overhead))
        stored.withUnsafeMutableBytes { page in
            page[9] |= encryptedFlag
            withAuthenticatedContext(of: UnsafeRawBufferPointer(page), at: offset) { context in
                cipher.seal(
                    UnsafeMutableRawBufferPointer(rebasing: page[headerSize..<bodyEnd]), context: context,
                    trailer: UnsafeMutableRawBufferPointer(rebasing: page[bodyEnd...]))
            }
        }
    }

    /// What an encrypted page's MAC binds its body to besides itself: its offset (a page
    /// moved elsewhere fails) and its header's fields after the checksum.
    private static func withAuthenticatedContext<Result>(
        of page: UnsafeRawBufferPointer, at offset: UInt64, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        var context = InlineArray<25, UInt8>(repeating: 0)
        var span = context.mutableSpan
        return span.withUnsafeMutableBytes { bytes in
            bytes[0] = UInt8(ascii: "P")
            bytes.storeBytes(of: offset.littleEndian, toByteOffset: 1, as: UInt64.self)
            UnsafeMutableRawBufferPointer(rebasing: bytes[9...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: page[8..<headerSize]))
            return body(UnsafeRawBufferPointer(bytes))
        }
    }

    /// The checksum of a stored page image (the bytes after its checksum field).
    static func checksumOf(_ stored: UnsafeRawBufferPointer, at offset: UInt64) -> UInt64 {
        let covered = UnsafeRawBufferPointer(rebasing: stored[8...])
        return XXH3_64bits_withSeed(covered.baseAddress, covered.count, offset)
    }

    /// Verifies and decodes a stored page, returning its kind and raw body.
    ///
    /// The checksum is checked before anything else is trusted; then the lengths must agree with
    /// the reference, an encrypted page's MAC must match (`cipher` is the file's, nil for a
    /// plain file), and the decompressed body must have exactly the recorded raw length.
    package static func decode(_ stored: UnsafeRawBufferPointer, ref: PageRef, cipher: FileCipher? = nil) throws -> (PageKind, [UInt8]) {
        let offset = ref.offset
        guard stored.count >= headerSize, stored.count == Int(ref.length) else {
            throw StorageError.corrupted("page is \(stored.count) bytes, shorter than a page header", at: offset)
        }
        let recorded = UInt64(littleEndian: stored.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        let actual = checksumOf(stored, at: offset)
        guard recorded == actual, actual == ref.checksum else {
            throw StorageError.corrupted("page failed its checksum", at: offset)
        }
        guard let kind = PageKind(rawValue: stored[8]) else {
            throw StorageError.corrupted("page has unknown kind \(stored[8])", at: offset)
        }
        let flags = stored[9]
        let rawCount = Int(UInt32(littleEndian: stored.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
        let bodyCount = Int(UInt32(littleEndian: stored.loadUnaligned(fromByteOffset: 16, as: UInt32.self)))
        let isEncrypted = flags & encryptedFlag != 0
        guard isEncrypted == (cipher != nil) else {
            throw StorageError.corrupted(isEncrypted ? "page is encrypted in a file opened without a key" : "page is not encrypted in an encrypted file", at: offset)
        }
        let trailer = isEncrypted ? FileCipher.overhead : 0
        guard bodyCount == stored.count - headerSize - trailer, flags & ~(compressedFlag | encryptedFlag) == 0 else {
            throw StorageError.corrupted("page header disagrees with the page's length", at: offset)
        }
        let body = UnsafeRawBufferPointer(rebasing: stored[headerSize..<(headerSize + bodyCount)])
        guard let cipher else {
            return (kind, try decompress(body, rawCount: rawCount, isCompressed: flags & compressedFlag != 0, at: offset))
        }
        let plain = try [UInt8](unsafeUninitializedCapacity: bodyCount) { buffer, initialized in
            let opened = withAuthenticatedContext(of: stored, at: offset) { context in
                cipher.open(body, into: UnsafeMutableRawBufferPointer(buffer), context: context,
                            trailer: UnsafeRawBufferPointer(rebasing: stored[(headerSize + bodyCount)...]))
            }
            guard opened else {
                throw StorageError.corrupted("page failed its authentication: it was altered, or written under another key", at: offset)
            }
            initialized = bodyCount
        }
        if flags & compressedFlag == 0 && rawCount == bodyCount { return (kind, plain) }
        return (kind, try plain.withUnsafeBytes { try decompress($0, rawCount: rawCount, isCompressed: flags & compressedFlag != 0, at: offset) })
    }

    /// The raw body of a page from its stored (decrypted) body.
    private static func decompress(_ body: UnsafeRawBufferPointer, rawCount: Int, isCompressed: Bool, at offset: UInt64) throws -> [UInt8] {
        let bodyCount = body.count
        if !isCompressed {
            guard rawCount == bodyCount else {
                throw StorageError.corrupted("uncompressed page declares raw length \(rawCount) but stores \(bodyCount)", at: offset)
            }
            return Array(body)
        }
        // LZ4 expands a block at most 255-fold (a byte more of match length per 255 bytes), so a
        // larger raw length is damage, found before a buffer of that size is zeroed for it.
        guard rawCount <= 1 << 30, rawCount <= 255 * bodyCount + 64 else {
            throw StorageError.corrupted("page declares an implausible raw length \(rawCount) for its \(bodyCount) stored bytes", at: offset)
        }
        var raw = [UInt8](repeating: 0, count: rawCount)
        let produced = raw.withUnsafeMutableBytes { target in
            LZ4_decompress_safe(
                body.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) },
                target.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bodyCount), Int32(rawCount))
        }
        guard produced == Int32(rawCount) else {
            throw StorageError.corrupted("page did not decompress to its recorded \(rawCount) bytes", at: offset)
        }
        return raw
    }
}

/// LZ4 compression states, kept for the next page. `LZ4_compress_default` sets up a fresh state
/// for every call, clearing its 16 KiB hash table. A state taken from here starts its page with `LZ4_resetStream_fast`, which
/// leaves the table as it is and only moves the state's base past what the old entries can
/// reach, so they match nothing.
enum CompressionStates {
    private struct State: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<LZ4_stream_t>
    }

    private static let kept = Locked<[State]>([])
    /// One per thread that compresses at once is all that is ever taken; more are freed.
    private static let limit = 8

    static func withState<Result>(_ body: (UnsafeMutablePointer<LZ4_stream_t>) -> Result) -> Result {
        let state = kept.withLock { $0.popLast() } ?? State(pointer: LZ4_createStream())
        defer {
            let freed = kept.withLock { states -> Bool in
                guard states.count < limit else { return true }
                states.append(state)
                return false
            }
            if freed { LZ4_freeStream(state.pointer) }
        }
        return body(state.pointer)
    }
}
