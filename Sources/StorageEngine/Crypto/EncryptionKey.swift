/// A realm file's 64-byte encryption key, split as Realm splits it: the first 32 bytes key
/// AES-256 (what keeps the data secret), the last 32 key HMAC-SHA-256 (what proves it unaltered).
package struct EncryptionKey: Sendable, Equatable {
    /// The length every key has.
    package static let length = 64

    package let bytes: [UInt8]

    /// - Throws: `invalidEncryptionKey` unless `bytes` is exactly 64 bytes long.
    package init(_ bytes: [UInt8]) throws {
        guard bytes.count == EncryptionKey.length else {
            throw StorageError(.invalidEncryptionKey, "an encryption key must be exactly \(EncryptionKey.length) bytes long; this one is \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// The AES-256 key.
    var encryptionHalf: ArraySlice<UInt8> { bytes[..<32] }
    /// The HMAC-SHA-256 key.
    var authenticationHalf: ArraySlice<UInt8> { bytes[32...] }
}
