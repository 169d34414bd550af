import CSwiftRuntime
import Foundation
import StorageEngine

/// The live handles of this process by context, so that opening a realm twice in one context
/// gives the same handle while it is alive, as RealmSwift's cache does: `Realm(configuration:)`
/// twice on one thread, or twice on one actor, returns one `Realm`, whose objects, write
/// transaction and version are the same whichever way it was reached.
///
/// A handle is reused only for a configuration that opens the realm the same way (file,
/// read-only, key, schema version and model classes); another configuration gets a handle of
/// its own, as before.
enum RealmHandleCache {
    /// The handle of `configuration` in `confinement`'s context: the live one if there is
    /// one, else a new one, remembered.
    static func open(_ configuration: Realm.Configuration, confinement: Confinement) throws -> Realm {
        if let cached = handle(for: configuration, confinement: confinement) { return cached }
        let realm = try Realm(configuration: configuration, confinement: confinement)
        remember(realm)
        return realm
    }

    /// A context handles are confined to: a thread, an actor or a task.
    private enum Context: Hashable {
        case thread(UInt)
        case actor(ObjectIdentifier)
        case task(Int)
    }

    private struct Key: Hashable {
        let realm: String
        let context: Context
    }

    /// A handle of the cache, not retained. A weak reference would give every handle a side
    /// table, and every retain and release of a handle would then take the runtime's slow
    /// path: each managed object and row buffer retains its realm, which made that a tenth of
    /// a primary-key lookup. Instead a handle's `deinit` removes its entry (`forget`), under
    /// the same lock as every lookup, and a lookup takes a handle only with a retain that
    /// fails once the handle's `deinit` has begun (`swift_tryRetain`), so the memory of a
    /// handle in the table is always still there.
    private struct Entry: @unchecked Sendable {
        // @unchecked: only read and written under `handles`' lock; the realm itself is used
        // only in its context, by whoever finds it there.
        let realm: Unmanaged<Realm>

        /// The handle, retained, unless its `deinit` has begun.
        func retained() -> Realm? {
            swift_tryRetain(realm.toOpaque()) != nil ? realm.takeRetainedValue() : nil
        }
    }

    private static let handles = Locked<[Key: Entry]>([:])

    /// Called by a handle's `deinit` before it removes its entry (tests hold a handle there,
    /// its deinit begun and its entry still in the table).
    static let willForget = Locked<(@Sendable (Realm) -> Void)?>(nil)

    /// The live handle opened with a configuration like `configuration`, confined to
    /// `confinement`; nil if there is none.
    static func handle(for configuration: Realm.Configuration, confinement: Confinement) -> Realm? {
        guard let key = key(configuration, confinement) else { return nil }
        // Retained under the lock and judged after it: the last release of a handle runs its
        // `deinit`, which takes the lock.
        guard let realm = handles.withLock({ $0[key]?.retained() }), realm.configuration.opensLike(configuration) else { return nil }
        // A file deleted and created again under the path is another realm.
        return realm.database.isStillAtPath ? realm : nil
    }

    /// Records `realm`, just opened, as its context's handle (unless a live one of the same
    /// file is recorded already).
    static func remember(_ realm: Realm) {
        guard let key = key(realm.configuration, realm.confinement) else { return }
        if let existing = handles.withLock({ $0[key]?.retained() }), existing !== realm, existing.database.isStillAtPath { return }
        handles.withLock { $0[key] = Entry(realm: .passUnretained(realm)) }
    }

    /// Removes `realm`'s entry, if it has one: called by its `deinit`.
    static func forget(_ realm: Realm) {
        guard let key = key(realm.configuration, realm.confinement) else { return }
        willForget.withLock { $0 }?(realm)
        handles.withLock { handles in
            if handles[key]?.realm.toOpaque() == Unmanaged.passUnretained(realm).toOpaque() { handles[key] = nil }
        }
    }

    /// How many handles of the file at `url` the cache holds (for tests).
    static func entryCount(forFileAt url: URL) -> Int {
        handles.withLock { $0.keys.filter { $0.realm == url.standardizedFileURL.path }.count }
    }

    private static func key(_ configuration: Realm.Configuration, _ confinement: Confinement) -> Key? {
        let realm: String
        if let identifier = configuration.inMemoryIdentifier {
            realm = "inmemory:" + identifier
        } else if let url = configuration.fileURL, configuration.file == nil {
            realm = url.standardizedFileURL.path
        } else {
            return nil
        }
        switch confinement {
        case .thread(let thread): return Key(realm: realm, context: .thread(UInt(thread)))
        case .actor(let actor): return Key(realm: realm, context: .actor(ObjectIdentifier(actor)))
        case .task(let task): return Key(realm: realm, context: .task(task))
        case .frozen: return nil
        }
    }
}

extension Realm.Configuration {
    /// Whether a handle opened with `other` reads and writes the realm the same way as one
    /// opened with this configuration.
    func opensLike(_ other: Realm.Configuration) -> Bool {
        readOnly == other.readOnly && encryptionKey == other.encryptionKey && schemaVersion == other.schemaVersion
            && objectTypes.map { $0.map(ObjectIdentifier.init) } == other.objectTypes.map { $0.map(ObjectIdentifier.init) }
    }
}
