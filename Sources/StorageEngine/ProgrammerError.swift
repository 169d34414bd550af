// How the engine stops on a broken invariant or a misuse by the layer above: with its message,
// in every build. `precondition` and `preconditionFailure` print their message only in
// unoptimized builds; an application ships optimized, and there they stop with "Illegal
// instruction" alone. `fatalError` prints it always, and these two are the engine's spellings
// of it (the object layer has its own, in AsyncRealm's `ProgrammerError.swift`).
// `PreconditionTests.messagesSurviveOptimization` keeps the standard forms out of the module.

/// Stops the program with `message` (see the top of this file).
@usableFromInline
func stopProgram(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError(message(), file: file, line: line)
}

/// Stops the program with `message` unless `condition` holds (see the top of this file).
@inlinable @inline(__always)
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { stopProgram(message(), file: file, line: line) }
}
