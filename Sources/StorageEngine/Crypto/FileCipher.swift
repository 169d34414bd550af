import CCrypto

/// Encrypts and authenticates what a realm file and its redo log store, under one key
/// (see `Docs/Encryption.md`).
///
/// A message (a page's body, a log record's payload) is encrypted in place with AES-256 in
/// counter mode under the key's first half, then authenticated with HMAC-SHA-256 under its
/// second half, over a context that binds the message to where it belongs (a page's offset
/// and header, a record's version), the ciphertext and the IV. The 32-byte trailer the
/// caller stores after the ciphertext holds the IV and the first 16 bytes of the MAC.
///
/// IVs are never reused under a key: each is this cipher's 64-bit random session prefix, a
/// 32-bit count of the messages it encrypted, and 32 zero bits that counter mode counts the
/// message's blocks in. A session ends after 2^32 messages; the next draws a new prefix.
package final class FileCipher: Sendable {
    /// Bytes a message grows by: its IV and its MAC.
    package static let overhead = ivSize + tagSize
    static let ivSize = 16
    static let tagSize = 16

    package let key: EncryptionKey
    private let contexts = Locked<[Contexts]>([])
    private let nonces: Locked<(prefix: UInt64, count: UInt32)>
    private let lastKeyCheck = Locked<(fileID: UInt64, check: [UInt8])?>(nil)

    /// One AES context and one HMAC context, keyed, for one thread at a time.
    private struct Contexts: @unchecked Sendable {
        let aes: OpaquePointer
        let hmac: OpaquePointer
    }

    package init(key: EncryptionKey) {
        self.key = key
        self.nonces = Locked((FileCipher.randomPrefix(), 0))
    }

    deinit {
        for context in contexts.withLock({ $0 }) {
            EVP_CIPHER_CTX_free(context.aes)
            EVP_MAC_CTX_free(context.hmac)
        }
    }

    // MARK: Messages

    /// Encrypts `body` in place and writes the IV and MAC into `trailer` (`overhead` bytes);
    /// the MAC covers `context`, the ciphertext and the IV.
    func seal(_ body: UnsafeMutableRawBufferPointer, context: UnsafeRawBufferPointer, trailer: UnsafeMutableRawBufferPointer) {
        require(trailer.count == FileCipher.overhead, "a sealed message's trailer is \(FileCipher.overhead) bytes")
        let iv = UnsafeMutableRawBufferPointer(rebasing: trailer[..<FileCipher.ivSize])
        nextIV(into: iv)
        withContexts { contexts in
            crypt(UnsafeRawBufferPointer(body), into: body, iv: UnsafeRawBufferPointer(iv), with: contexts.aes)
            var mac = InlineArray<32, UInt8>(repeating: 0)
            var span = mac.mutableSpan
            span.withUnsafeMutableBytes { digest in
                authenticate([context, UnsafeRawBufferPointer(body), UnsafeRawBufferPointer(iv)], into: digest, with: contexts.hmac)
                UnsafeMutableRawBufferPointer(rebasing: trailer[FileCipher.ivSize...])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: digest[..<FileCipher.tagSize]))
            }
        }
    }

    /// Checks the MAC in `trailer` against `context`, `ciphertext` and the IV, then decrypts
    /// `ciphertext` into `plaintext` (as long; it may be the same memory). False, with nothing
    /// decrypted, if the MAC does not match: the bytes were altered, or the key is another.
    func open(
        _ ciphertext: UnsafeRawBufferPointer, into plaintext: UnsafeMutableRawBufferPointer,
        context: UnsafeRawBufferPointer, trailer: UnsafeRawBufferPointer
    ) -> Bool {
        guard trailer.count == FileCipher.overhead, plaintext.count == ciphertext.count else { return false }
        let iv = UnsafeRawBufferPointer(rebasing: trailer[..<FileCipher.ivSize])
        return withContexts { contexts in
            var mac = InlineArray<32, UInt8>(repeating: 0)
            var span = mac.mutableSpan
            let matches = span.withUnsafeMutableBytes { digest in
                authenticate([context, ciphertext, iv], into: digest, with: contexts.hmac)
                return CRYPTO_memcmp(digest.baseAddress!, trailer.baseAddress! + FileCipher.ivSize, FileCipher.tagSize) == 0
            }
            guard matches else { return false }
            crypt(ciphertext, into: plaintext, iv: iv, with: contexts.aes)
            return true
        }
    }

    /// The first 16 bytes of HMAC-SHA-256 over `parts`, under the authentication half.
    func tag(of parts: [UnsafeRawBufferPointer]) -> [UInt8] {
        withContexts { contexts in
            var digest = [UInt8](repeating: 0, count: 32)
            digest.withUnsafeMutableBytes { authenticate(parts, into: $0, with: contexts.hmac) }
            return Array(digest[..<FileCipher.tagSize])
        }
    }

    /// What a file created under this key records to recognise it (16 bytes): a MAC over
    /// `fileID` and a digest of the encryption half, so that a key differing in either half
    /// is told apart before any page is decrypted. Kept for the last file id asked about:
    /// every header read (each write transaction's start) checks it, and a file's id never
    /// changes.
    func keyCheck(fileID: UInt64) -> [UInt8] {
        if let kept = lastKeyCheck.withLock({ $0 }), kept.fileID == fileID { return kept.check }
        var digest = [UInt8](repeating: 0, count: 32)
        let encryptionHalf = Array(key.encryptionHalf)
        encryptionHalf.withUnsafeBytes { half in
            digest.withUnsafeMutableBytes { out in
                var length: UInt32 = 0
                let done = EVP_Digest(half.baseAddress, half.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, EVP_sha256(), nil)
                require(done == 1, "libcrypto could not compute SHA-256")
            }
        }
        let label = Array("AsyncRealm key check".utf8)
        var id = fileID.littleEndian
        let check = label.withUnsafeBytes { label in
            digest.withUnsafeBytes { digest in
                withUnsafeBytes(of: &id) { id in tag(of: [label, id, digest]) }
            }
        }
        lastKeyCheck.withLock { $0 = (fileID, check) }
        return check
    }

    // MARK: Primitives

    private func crypt(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, iv: UnsafeRawBufferPointer, with aes: OpaquePointer) {
        guard !input.isEmpty else { return }
        var written: Int32 = 0
        let reset = EVP_EncryptInit_ex(aes, nil, nil, nil, iv.baseAddress!.assumingMemoryBound(to: UInt8.self))
        let done = EVP_EncryptUpdate(
            aes, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
            input.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(input.count))
        require(reset == 1 && done == 1 && Int(written) == input.count, "libcrypto failed to run AES-256-CTR")
    }

    private func authenticate(_ parts: [UnsafeRawBufferPointer], into digest: UnsafeMutableRawBufferPointer, with hmac: OpaquePointer) {
        var ok = EVP_MAC_init(hmac, nil, 0, nil) == 1
        for part in parts where !part.isEmpty {
            ok = ok && EVP_MAC_update(hmac, part.baseAddress!.assumingMemoryBound(to: UInt8.self), part.count) == 1
        }
        var length = 0
        ok = ok && EVP_MAC_final(hmac, digest.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, 32) == 1
        require(ok && length == 32, "libcrypto failed to compute HMAC-SHA-256")
    }

    /// The next IV: the session prefix, the message count, then zeros for the block counter.
    private func nextIV(into iv: UnsafeMutableRawBufferPointer) {
        let (prefix, count) = nonces.withLock { state in
            if state.count == .max { state = (FileCipher.randomPrefix(), 0) }
            defer { state.count += 1 }
            return state
        }
        iv.storeBytes(of: prefix.bigEndian, toByteOffset: 0, as: UInt64.self)
        iv.storeBytes(of: count.bigEndian, toByteOffset: 8, as: UInt32.self)
        iv.storeBytes(of: UInt32(0), toByteOffset: 12, as: UInt32.self)
    }

    /// 64 bits from the operating system's random source, through libcrypto's generator.
    private static func randomPrefix() -> UInt64 {
        var prefix: UInt64 = 0
        let done = withUnsafeMutableBytes(of: &prefix) { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 8) }
        require(done == 1, "libcrypto could not draw random bytes for an IV")
        return prefix
    }

    /// Calls `body` with contexts no other thread uses meanwhile, made on first need and kept.
    private func withContexts<Result>(_ body: (Contexts) -> Result) -> Result {
        let taken = contexts.withLock { $0.popLast() } ?? makeContexts()
        defer { contexts.withLock { $0.append(taken) } }
        return body(taken)
    }

    private func makeContexts() -> Contexts {
        let aes = Array(key.encryptionHalf).withUnsafeBufferPointer { asyncrealm_aes256_ctr_new($0.baseAddress!) }
        let hmac = Array(key.authenticationHalf).withUnsafeBufferPointer { asyncrealm_hmac_sha256_new($0.baseAddress!, $0.count) }
        guard let aes, let hmac else { stopProgram("libcrypto could not set up AES-256-CTR and HMAC-SHA-256") }
        return Contexts(aes: aes, hmac: hmac)
    }
}
