import Foundation

/// Runs `body` once on each input named in `paths`: files, or every file of a directory, in
/// name order. What a fuzz target built without libFuzzer does with its command line, so that
/// the checked-in corpora and any crash input can be replayed by a plain build.
public func replayInputs(_ paths: some Sequence<String>, _ body: (UnsafeRawBufferPointer) -> Void) throws {
    for path in paths {
        var isDirectory: ObjCBool = false
        let files = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 }
            : [path]
        for file in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            data.withUnsafeBytes(body)
        }
    }
}

#if FUZZING
/// libFuzzer's entry point for a program that has a `main` of its own (SwiftPM names each
/// executable's `main` after its target and points `main` at it, so libFuzzer's own `main`
/// cannot be used): runs the fuzzer with the command line and `test` as the target.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer on `test` with the process's command line (a fuzz target's `main` in a
/// build with `-sanitize=fuzzer`).
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, test)
}
#endif
