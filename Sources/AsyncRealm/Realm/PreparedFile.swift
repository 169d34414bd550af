import Foundation
import StorageEngine

/// A realm file opened, and brought to the configuration's schema, away from the caller's
/// actor: what `Realm.open(configuration:)` and `Realm(configuration:actor:)` do before they
/// make the caller's handle (see `prepare(_:)`).
///
/// Holding it keeps the file, its coordinator and the schema it was brought to alive, so the
/// handle made next finds all of it done: opening it is a lookup.
struct PreparedFile: Sendable {
    let database: Database
    let coordinator: RealmCoordinator

    /// Opens `configuration`'s realm on a thread of its own, with everything opening does (file
    /// open, log replay, compaction, schema check, migration), while the caller suspends.
    ///
    /// - Throws: `CancellationError` if the task is cancelled before the work starts or by the
    ///   time it ends (work under way finishes first: a migration is never cut short); what
    ///   opening throws otherwise.
    static func prepare(_ configuration: Realm.Configuration) async throws -> PreparedFile {
        try Task.checkCancellation()
        let prepared = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PreparedFile, any Error>) in
            // A thread of its own, not a pool's: a migration may take long, and threads of a
            // pool that the app keeps busy (or blocked) would hold the open up.
            let thread = Thread {
                continuation.resume(with: Result {
                    let realm = try Realm(configuration: configuration, confinement: .thread(pthread_self()))
                    return PreparedFile(database: realm.database, coordinator: realm.coordinator)
                })
            }
            thread.qualityOfService = .userInitiated
            thread.start()
        }
        try Task.checkCancellation()
        return prepared
    }
}
