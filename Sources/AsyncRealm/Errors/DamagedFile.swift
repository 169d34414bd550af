import StorageEngine

// What a read behind an API that cannot throw (iterating, counting, summing, filtering, a
// property, a primary-key lookup) does when the file fails it: a page that fails its
// checksum, a row that does not decode, an I/O error. It stops the program with what was met,
// as RealmSwift's exception does there. Answering as if the rows were not there would hand
// the caller a count, a sum or an empty result it cannot tell from a right one. (APIs that
// throw, `write` and opening a realm among them, throw the same errors as `Realm.Error`s.)

/// The value `read` returns; stops the program if it throws (see the top of this file).
@usableFromInline
func readOrStop<T>(_ read: () throws -> T) -> T {
    do {
        return try read()
    } catch {
        stopOnDamage(error)
    }
}

/// Stops the program for `error`, met reading the file (see the top of this file).
@usableFromInline
func stopOnDamage(_ error: any Error, table: String? = nil) -> Never {
    let described = (error as? StorageError).map { "\(RealmError($0))" } ?? "\(error)"
    let place = table.map { " (a row of '\($0)')" } ?? ""
    stop("the realm file could not be read\(place): \(described); the file is damaged or the disk failed, so restore it from a copy")
}
