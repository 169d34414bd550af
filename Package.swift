// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "AsyncRealm",
    products: [
        .library(name: "AsyncRealm", targets: ["AsyncRealm"]),
        .executable(name: "realm-bench", targets: ["RealmBench"]),
        .executable(name: "realm-bench-sqlcipher", targets: ["SQLCipherPeer"]),
        // The inspector: info, schema, query, export, verify and compact on a realm file.
        .executable(name: "asyncrealm", targets: ["Inspector"]),
    ],
    targets: [
        // C libraries from Debian packages, reached through module maps.
        .systemLibrary(
            name: "CLZ4", path: "Sources/CLZ4", pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]),
        .systemLibrary(
            name: "CXXHash", path: "Sources/CXXHash", pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]),
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // A compiler builtin Swift does not spell (a cache prefetch): a header, no library.
        .systemLibrary(name: "CPrefetch", path: "Sources/CPrefetch"),
        // Linux system calls Swift cannot reach (syscall(2) is variadic): a header.
        .systemLibrary(name: "CLinuxSyscalls", path: "Sources/CLinuxSyscalls"),
        // Functions of the Swift runtime itself that Swift has no spelling for (a retain that
        // fails on an object being deinitialised, the running task and executor, reference
        // counts): a header, no library.
        .systemLibrary(name: "CSwiftRuntime", path: "Sources/CSwiftRuntime"),
        // A compiler builtin Swift does not spell (the thread pointer): a header, no library.
        .systemLibrary(name: "CThreadPointer", path: "Sources/CThreadPointer"),
        .systemLibrary(
            name: "CSQLite", path: "Benchmarks/RealmBench/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CSQLCipher", path: "Benchmarks/SQLCipherPeer/CSQLCipher", pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]),
        .systemLibrary(
            name: "CLMDB", path: "Benchmarks/RealmBench/CLMDB", pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]),

        // Pages, trees, versions, commits. No objects, no actors.
        .target(name: "StorageEngine", dependencies: ["CLZ4", "CXXHash", "CCrypto", "CPrefetch", "CLinuxSyscalls"]),
        // The public library.
        .target(name: "AsyncRealm", dependencies: ["StorageEngine", "CSwiftRuntime", "CThreadPointer"]),
        // `asyncrealm`, to a realm file what `sqlite3` is to a SQLite file.
        .executableTarget(name: "Inspector", dependencies: ["AsyncRealm", "StorageEngine"]),

        .executableTarget(
            name: "RealmBench",
            dependencies: ["StorageEngine", "AsyncRealm", "CSQLite", "CLMDB"],
            path: "Benchmarks/RealmBench/Sources"),
        // realm-bench's SQLCipher peer, a process of its own (its symbols are SQLite's, so
        // realm-bench cannot link it, nor depend on it: it builds it when first needed).
        .executableTarget(
            name: "SQLCipherPeer", dependencies: ["CSQLCipher"], path: "Benchmarks/SQLCipherPeer/Sources",
            swiftSettings: [.define("SQLCIPHER")]),

        // A child process for the crash tests: commits numbered transactions until killed.
        .executableTarget(
            name: "CrashWriter", dependencies: ["StorageEngine", "TestSupport"], path: "Tests/CrashWriter"),
        // What every test target shares (a temporary directory per test).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "StorageEngineTests", dependencies: ["StorageEngine", "CrashWriter", "TestSupport"]),
        .testTarget(name: "AsyncRealmTests", dependencies: ["AsyncRealm", "StorageEngine", "MigratingProcess", "TestSupport"]),
        // The README's quick start, compiled and run as it is written there.
        .testTarget(name: "QuickStartTests", dependencies: ["AsyncRealm", "TestSupport"]),
        // The `asyncrealm` inspector, run as a built executable on files the tests make.
        .testTarget(name: "InspectorTests", dependencies: ["AsyncRealm", "Inspector", "TestSupport"]),
        // The guides' examples (Docs/*.md), compiled and run.
        .testTarget(name: "GuideTests", dependencies: ["AsyncRealm", "StorageEngine", "TestSupport"]),
        // A child process for the migration tests: seeds, migrates (to be killed) and verifies.
        .executableTarget(
            name: "MigratingProcess", dependencies: ["AsyncRealm"], path: "Tests/MigratingProcess"),
        // A child process for the two-process tests: increments a counter and watches changes.
        .executableTarget(
            name: "CounterProcess", dependencies: ["AsyncRealm"], path: "Tests/CounterProcess"),
        // Actors, change streams, frozen values; also run under ThreadSanitizer by `.ci/run`.
        .testTarget(
            name: "AsyncRealmConcurrencyTests",
            dependencies: ["AsyncRealm", "StorageEngine", "CounterProcess", "TestSupport"]),

        // Fuzz targets (libFuzzer): built with `-sanitize=fuzzer,address -D FUZZING` by
        // `scripts/fuzz.sh`; a plain build replays the inputs named on the command line.
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzQuery", dependencies: ["AsyncRealm", "FuzzSupport"], path: "Fuzz/FuzzQuery"),
        .executableTarget(name: "FuzzFile", dependencies: ["AsyncRealm", "StorageEngine", "FuzzSupport"], path: "Fuzz/FuzzFile"),
        .executableTarget(name: "FuzzNode", dependencies: ["StorageEngine", "FuzzSupport"], path: "Fuzz/FuzzNode"),
    ],
    swiftLanguageModes: [.v6]
)
