// realm-bench's SQLCipher peer, a process of its own: SQLCipher's symbols are SQLite's, so
// one process cannot link both. realm-bench starts it and has it run each workload in turn
// with AsyncRealm, one command per line on standard input, one answer per line on standard
// output ("<seconds> <checksum>").
//
//     realm-bench-sqlcipher <directory> <object count> <runs> <key as 64 hex digits>
//
// Commands: `fresh` (a new, empty database), `batch`, `simple <run>`, `scan`, `lookup`.
import CSQLCipher
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 5, let objectCount = Int(arguments[2]), let runs = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: realm-bench-sqlcipher <directory> <object count> <runs> <hex key>\n".utf8))
    exit(2)
}
let path = arguments[1] + "/objects.sqlcipher"
let key = arguments[4]
let data = ObjectWorkloadData(objectCount: objectCount, runs: runs)
let (rows, extra, lookupIDs) = (data.rows, data.extra, data.lookupIDs)

func seconds(_ body: () throws -> Int) rethrows -> String {
    let clock = ContinuousClock()
    var checksum = 0
    let elapsed = try clock.measure { checksum = try body() }
    return "\(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) \(checksum)"
}

var database: SQLiteObjects?
while let line = readLine() {
    let words = line.split(separator: " ")
    let answer: String
    switch words.first {
    case "fresh":
        database = nil
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        database = try SQLiteObjects(path: path, cacheBytes: 64 << 20, hexKey: key)
        answer = "ok"
    case "batch":
        answer = try seconds { try database!.insert(rows, oneTransaction: true); return 0 }
    case "simple":
        let start = Int(words[1])!, count = Int(words[2])!
        answer = try seconds { try database!.insert(Array(extra[start..<(start + count)]), oneTransaction: false); return 0 }
    case "scan":
        answer = try seconds { try database!.scan() }
    case "lookup":
        answer = try seconds { try database!.lookup(lookupIDs) }
    default:
        answer = "error: unknown command '\(line)'"
    }
    FileHandle.standardOutput.write(Data((answer + "\n").utf8))
}
