
/// A `FileIO` kept in memory: in-memory realms use it, and tests use it to build crash images.
///
/// `sync()` does nothing because there is nothing to lose; everything else behaves like a file,
/// reads past the end included.
package final class InMemoryFile: FileIO {
    private let storage: Locked<[UInt8]>

    package init(contents: [UInt8] = []) {
        storage = Locked(contents)
    }

    /// A copy of the current contents.
    package var contents: [UInt8] { storage.withLock { $0 } }

    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
        try storage.withLock { (bytes) in
            guard offset <= UInt64(bytes.count), UInt64(buffer.count) <= UInt64(bytes.count) - offset else {
                throw StorageError.corrupted("in-memory file ends before the \(buffer.count) bytes the engine expected", at: offset)
            }
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[Int(offset)..<(Int(offset) + buffer.count)]))
            }
        }
    }

    package func write(_ source: UnsafeRawBufferPointer, at offset: UInt64) throws {
        storage.withLock { bytes in
            let end = Int(offset) + source.count
            if end > bytes.count { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
            bytes.withUnsafeMutableBytes { target in
                UnsafeMutableRawBufferPointer(rebasing: target[Int(offset)..<end]).copyMemory(from: source)
            }
        }
    }

    package func sync() throws {}

    package func size() throws -> UInt64 {
        storage.withLock { UInt64($0.count) }
    }

    package func truncate(to length: UInt64) throws {
        storage.withLock { bytes in
            if Int(length) < bytes.count {
                bytes.removeSubrange(Int(length)...)
            } else {
                bytes.append(contentsOf: repeatElement(0, count: Int(length) - bytes.count))
            }
        }
    }
}
