/// The 64 bytes of the key that the suites which also run on encrypted files use, and the
/// child processes they start (told by `encryptedChildEnvironment`).
package let testEncryptionKeyBytes: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

/// The environment variable that tells a child process to open its files with the test key.
package let encryptedChildEnvironment = "ASYNCREALM_TEST_ENCRYPTED"
