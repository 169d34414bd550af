// A child process for the crash and multi-process tests.
//
//     CrashWriter append <database> <side file> <seed>
//         Commits numbered transactions (key n = the n-th row of table "log") and appends each
//         number to the side file once its commit has returned, until it is killed; after
//         `appendLimit` commits it waits for the kill without writing, so that a test whose
//         kill comes late (its threads busy elsewhere) does not face a table without bound. With
//         several writers at once, each transaction reads the row count inside the transaction,
//         so the keys stay 1...k only if the write lock truly excludes the other processes.
//     CrashWriter hold <database> <side file>
//         Commits a small transaction every 10 ms, and appends its number to the side file,
//         until it is killed: it keeps commits in its redo log, and so the file to itself, for
//         as long as it runs (it never idles long enough to checkpoint).
//     CrashWriter compact <database>
//         Compacts the database in place (`Database.compactOnFirstOpen`), prints "compacted"
//         and exits.
//     CrashWriter compact-loop <database>
//         Until it is killed: frees space in table "t" (a large row inserted and deleted in one
//         commit, so the rows stay as they are), then compacts the database in place. The
//         compaction tests kill it at random moments.
//     CrashWriter rewrite <database> <rounds>
//         Rewrites every row of table "t" `rounds` times, one commit per round, then exits.
import Foundation
import StorageEngine
import TestSupport

/// The test key when the test asked for encrypted files (`encryptedChildEnvironment`).
let key = ProcessInfo.processInfo.environment[encryptedChildEnvironment] == nil ? nil : try EncryptionKey(testEncryptionKeyBytes)

struct XorShift {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

/// The file a writer lists the numbers of its acknowledged commits in, one per line, opened
/// with `O_APPEND`: several writers share it, and each line goes in whole at the end in one
/// `write`. (A seek to the end and a write were two steps: two writers could seek to the same
/// end, and one number overwrite or run into another.)
struct SideFile {
    let descriptor: Int32

    init(path: String) {
        descriptor = open(path, O_WRONLY | O_APPEND)
        if descriptor < 0 { fail("cannot open \(path) to append") }
    }

    func append(_ number: UInt64) {
        let line = Array("\(number)\n".utf8)
        guard line.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == line.count else { fail("cannot append to the side file") }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: CrashWriter append|rewrite ...") }
switch arguments[1] {
case "append":
    guard arguments.count == 5, let seed = UInt64(arguments[4]) else { fail("usage: CrashWriter append <database> <side file> <seed>") }
    let database = try Database.open(path: arguments[2], encryptionKey: key)
    let side = SideFile(path: arguments[3])
    var random = XorShift(state: seed | 1)
    let appendLimit = 2_000
    for _ in 0..<appendLimit {
        let (number, _) = try database.write { transaction in
            let log = transaction.createTable("log")
            let number = UInt64(log.count) + 1
            // Payloads of varied size exercise splits and, now and then, overflow pages.
            let size = random.next() % 8 == 0 ? Int(random.next() % 9000) : Int(random.next() % 300)
            let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: number), count: size)
            try log.insert([.int(Int64(number)), .binary(payload)], forKey: number)
            return number
        }
        side.append(number)
    }
    while true { sleep(60) }
case "hold":
    guard arguments.count == 4 else { fail("usage: CrashWriter hold <database> <side file>") }
    let database = try Database.open(path: arguments[2], encryptionKey: key)
    let side = SideFile(path: arguments[3])
    while true {
        let (number, _) = try database.write { transaction in
            let log = transaction.createTable("log")
            let number = UInt64(log.count) + 1
            try log.insert([.int(Int64(number))], forKey: number)
            return number
        }
        side.append(number)
        usleep(10_000)
    }
case "rewrite":
    guard arguments.count == 4, let rounds = Int(arguments[3]) else { fail("usage: CrashWriter rewrite <database> <rounds>") }
    let database = try Database.open(path: arguments[2], encryptionKey: key)
    for round in 1...rounds {
        try database.write { transaction in
            let table = try transaction.table("t")
            for key in try table.keys() {
                let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: round &+ Int(key)), count: 64)
                try table.update(key, to: [.int(Int64(round)), .binary(payload)])
            }
        }
    }
case "compact":
    guard arguments.count == 3 else { fail("usage: CrashWriter compact <database>") }
    guard try Database.compactOnFirstOpen(atPath: arguments[2], encryptionKey: key, shouldCompact: { _, _ in true }) else {
        fail("the database was not compacted")
    }
    print("compacted")
case "compact-loop":
    guard arguments.count == 3 else { fail("usage: CrashWriter compact-loop <database>") }
    while true {
        do {
            try Database.open(path: arguments[2], encryptionKey: key).write { transaction in
                let table = try transaction.table("t")
                try table.insert([.binary([UInt8](repeating: 1, count: 40_000)), .int(-1)], forKey: 900_000)
                try table.delete(900_000)
            }
        }
        guard try Database.compactOnFirstOpen(atPath: arguments[2], encryptionKey: key, shouldCompact: { _, _ in true }) else {
            fail("the database was not compacted")
        }
    }
default:
    fail("unknown mode '\(arguments[1])'")
}
