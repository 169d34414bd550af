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

/// What a tool does instead of stopping when a read meets damage, given the message: the
/// inspector reports it as a failure of the file and exits with its own status. Set once, at
/// start-up, before any realm is opened; nil in an application, which stops.
package nonisolated(unsafe) var damagedFileHandler: (@Sendable (String) -> Never)?

/// Stops the program for `error`, met reading the file (see the top of this file), or hands
/// the message to `damagedFileHandler`.
@usableFromInline
func stopOnDamage(_ error: any Error, table: String? = nil) -> Never {
    let place = table.map { " (an object of class '\($0)')" } ?? ""
    stopOnDamage(place + ": " + damageDescription(error))
}

/// Stops the program (or hands the message to `damagedFileHandler`) for damage met reading
/// the file, described by `what` (where, then what: " (an object of class 'Dog'): ...").
func stopOnDamage(_ what: String) -> Never {
    let message = "the realm file could not be read\(what); the file is damaged or the disk failed, so restore it from a copy"
    if let damagedFileHandler { damagedFileHandler(message) }
    stop(message)
}

/// `error` in the words of a `Realm.Error` when the engine threw it.
func damageDescription(_ error: any Error) -> String {
    (error as? StorageError).map { "\(RealmError($0))" } ?? "\(error)"
}
