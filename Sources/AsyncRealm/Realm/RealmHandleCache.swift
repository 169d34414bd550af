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

    private struct WeakRealm: @unchecked Sendable {
        // @unchecked: only read and written under `handles`' lock; the realm itself is used
        // only in its context, by whoever finds it there.
        weak var realm: Realm?
    }

    private static let handles = Locked<[Key: WeakRealm]>([:])

    /// The live handle opened with a configuration like `configuration`, confined to
    /// `confinement`; nil if there is none.
    static func handle(for configuration: Realm.Configuration, confinement: Confinement) -> Realm? {
        guard let key = key(configuration, confinement) else { return nil }
        return handles.withLock { handles in
            guard let realm = handles[key]?.realm, realm.configuration.opensLike(configuration) else { return nil }
            // A file deleted and created again under the path is another realm.
            return realm.database.isStillAtPath ? realm : nil
        }
    }

    /// Records `realm`, just opened, as its context's handle (unless a live one of the same
    /// file is recorded already).
    static func remember(_ realm: Realm) {
        guard let key = key(realm.configuration, realm.confinement) else { return }
        handles.withLock { handles in
            if let existing = handles[key]?.realm, existing.database.isStillAtPath { return }
            // Entries of handles gone are dropped now and then, not left to pile up.
            if handles.count > 64 { handles = handles.filter { $0.value.realm != nil } }
            handles[key] = WeakRealm(realm: realm)
        }
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
