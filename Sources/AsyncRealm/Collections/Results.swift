import StorageEngine

/// The objects of one class in a realm, in insertion order. Live: reading it after the realm
/// has changed (a write through this handle, a refresh) shows the change.
public final class Results<Element: Object>: RandomAccessCollection {
    let realm: Realm
    let info: ClassInfo
    private var cachedKeys: [UInt64] = []
    private var cachedStamp = -1

    init(realm: Realm, info: ClassInfo) {
        self.realm = realm
        self.info = info
    }

    /// The keys of the objects, reread when the realm has changed since the last read.
    private var keys: [UInt64] {
        realm.checkThread()
        if cachedStamp != realm.stamp {
            cachedKeys = (try? realm.readTable(named: info.tableName)?.keys()) ?? []
            cachedStamp = realm.stamp
        }
        return cachedKeys
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    /// The number of objects, from the table's row count: no keys are read.
    public var count: Int {
        realm.checkThread()
        return realm.readTable(named: info.tableName)?.count ?? 0
    }

    public subscript(position: Int) -> Element {
        realm.accessor(of: Element.self, key: keys[position])
    }
}
