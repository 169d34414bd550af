// A child process for the crash tests: commits numbered transactions to a database and appends
// each number to a side file once its commit has returned, until it is killed.
//
//     CrashWriter <database path> <side file path> <seed>
import Foundation
import StorageEngine

let arguments = CommandLine.arguments
guard arguments.count == 4, let seed = UInt64(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: CrashWriter <database> <side file> <seed>\n".utf8))
    exit(2)
}
let database = try Database.open(path: arguments[1])
let side = try FileHandle(forWritingTo: URL(fileURLWithPath: arguments[2]))
try side.seekToEnd()

struct XorShift {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
var random = XorShift(state: seed | 1)

var number = UInt64(try database.snapshot().tableIfPresent("log")?.count ?? 0) + 1
while true {
    try database.write { transaction in
        let log = transaction.createTable("log")
        // Payloads of varied size exercise splits and, now and then, overflow pages.
        let size = random.next() % 8 == 0 ? Int(random.next() % 9000) : Int(random.next() % 300)
        let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: number), count: size)
        try log.insert([.int(Int64(number)), .binary(payload)], forKey: number)
    }
    side.write(Data("\(number)\n".utf8))
    number += 1
}
