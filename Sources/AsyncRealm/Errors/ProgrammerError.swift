// How a programmer error stops the program (DESIGN.md, Errors): with the message that says
// what to do instead, in every build. `precondition` and `preconditionFailure` print their
// message only in unoptimized builds; in an optimized one, the build an application ships
// and the one a user meets the error in, they stop with "Illegal instruction" and nothing
// else. `fatalError` prints it in every build, and these two are the project's spellings of
// it. `PreconditionTests.messagesSurviveOptimization` keeps the standard forms out of this
// module.

/// Stops the program with `message` (see the top of this file).
@usableFromInline
func stop(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError(message(), file: file, line: line)
}

/// Stops the program with `message` unless `condition` holds (see the top of this file).
@inlinable @inline(__always)
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { stop(message(), file: file, line: line) }
}
