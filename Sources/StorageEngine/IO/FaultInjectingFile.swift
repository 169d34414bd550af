
/// A `FileIO` that records every write and sync so tests can build the image a crash would leave,
/// and that can be told to fail writes or syncs with an injected error (`ENOSPC`, `EIO`).
///
/// The model of a crash is the usual one for a file system without data journaling: everything
/// before the last completed `sync()` survives; any write after it may be lost, and the write in
/// flight may survive as a torn prefix.
package final class FaultInjectingFile: FileIO {
    package enum Operation: Sendable {
        case write(offset: UInt64, bytes: [UInt8])
        case sync
        case truncate(length: UInt64)
    }

    /// What survives a crash in the middle of a write.
    package enum CrashOutcome: Sendable {
        /// Every write since the last sync is lost, the one in flight included.
        case dropUnsynced
        /// The earlier unsynced writes survive, and the first `prefix` bytes of the write in flight.
        case tornWrite(prefix: Int)
        /// Only the first `prefix` bytes of the write in flight survive; earlier unsynced writes are lost.
        case tornWriteOnly(prefix: Int)
    }

    private struct State {
        var contents: [UInt8]
        var log: [Operation] = []
        var failure: StorageError?
        var failAfterWrites: Int?
        var failSyncs = false
    }

    private let state: Locked<State>
    private let memory: InMemoryFile

    package init(contents: [UInt8] = []) {
        state = Locked(State(contents: contents))
        memory = InMemoryFile(contents: contents)
    }

    /// Every operation since creation (or since `clearLog()`), in order.
    package var log: [Operation] { state.withLock { $0.log } }

    /// The contents as a process that did not crash sees them.
    package var contents: [UInt8] { memory.contents }

    func clearLog() { state.withLock { $0.log.removeAll() } }

    /// Makes every write after the next `writes` successful ones throw `error`.
    func failWrites(after writes: Int, with error: StorageError) {
        state.withLock {
            $0.failAfterWrites = writes
            $0.failure = error
        }
    }

    /// Makes every `sync()` throw `error`.
    func failSyncs(with error: StorageError) {
        state.withLock {
            $0.failSyncs = true
            $0.failure = error
        }
    }

    func stopFailing() {
        state.withLock {
            $0.failAfterWrites = nil
            $0.failSyncs = false
            $0.failure = nil
        }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
        try memory.read(into: buffer, at: offset)
    }

    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        let injected: StorageError? = state.withLock { state in
            if let remaining = state.failAfterWrites {
                if remaining == 0 { return state.failure }
                state.failAfterWrites = remaining - 1
            }
            state.log.append(.write(offset: offset, bytes: Array(bytes)))
            return nil
        }
        if let injected { throw injected }
        try memory.write(bytes, at: offset)
    }

    package func sync() throws {
        let injected: StorageError? = state.withLock { state in
            if state.failSyncs { return state.failure }
            state.log.append(.sync)
            return nil
        }
        if let injected { throw injected }
    }

    package func size() throws -> UInt64 { try memory.size() }

    package func truncate(to length: UInt64) throws {
        state.withLock { $0.log.append(.truncate(length: length)) }
        try memory.truncate(to: length)
    }

    /// The image a crash during operation `index` of `log` leaves, starting from `base`.
    ///
    /// `log[index]` must be a write: it is the write in flight when the machine stopped.
    static func crashImage(
        base: [UInt8], log: [Operation], crashingAt index: Int, outcome: CrashOutcome
    ) -> [UInt8] {
        var durable = base
        var unsynced: [(UInt64, [UInt8])] = []
        for operation in log[..<index] {
            switch operation {
            case .write(let offset, let bytes): unsynced.append((offset, bytes))
            case .sync:
                for (offset, bytes) in unsynced { apply(bytes, at: offset, to: &durable) }
                unsynced.removeAll()
            case .truncate(let length):
                // The engine truncates only outside commits; treat it as durable at once.
                for (offset, bytes) in unsynced { apply(bytes, at: offset, to: &durable) }
                unsynced.removeAll()
                resize(&durable, to: Int(length))
            }
        }
        guard case .write(let offset, let inFlight) = log[index] else {
            stopProgram("crashImage(crashingAt:) needs the index of a write; log[\(index)] is \(log[index])")
        }
        switch outcome {
        case .dropUnsynced:
            break
        case .tornWrite(let prefix):
            for (earlier, bytes) in unsynced { apply(bytes, at: earlier, to: &durable) }
            apply(Array(inFlight.prefix(prefix)), at: offset, to: &durable)
        case .tornWriteOnly(let prefix):
            apply(Array(inFlight.prefix(prefix)), at: offset, to: &durable)
        }
        return durable
    }

    /// The image a crash just before the final sync of `log` leaves when the disk kept every
    /// write but the one at `index`: disks reorder unsynced writes, so any one may be missing.
    static func crashImage(base: [UInt8], log: [Operation], losingWriteAt index: Int) -> [UInt8] {
        var image = base
        for (position, operation) in log.enumerated() where position != index {
            switch operation {
            case .write(let offset, let bytes): apply(bytes, at: offset, to: &image)
            case .sync: break
            case .truncate(let length): resize(&image, to: Int(length))
            }
        }
        return image
    }

    private static func apply(_ bytes: [UInt8], at offset: UInt64, to image: inout [UInt8]) {
        let end = Int(offset) + bytes.count
        if end > image.count { resize(&image, to: end) }
        image.replaceSubrange(Int(offset)..<end, with: bytes)
    }

    private static func resize(_ image: inout [UInt8], to length: Int) {
        if length < image.count {
            image.removeSubrange(length...)
        } else {
            image.append(contentsOf: repeatElement(0, count: length - image.count))
        }
    }
}
