import AsyncRealm
import Foundation

/// The object workloads on an encrypted realm, against SQLCipher (`PRAGMA key` with a raw
/// key, WAL, `synchronous=FULL`, the same page cache) doing the same work in its own process.
enum EncryptedWorkload: String, CaseIterable {
    case batchWrite = "EncryptedBatchWrite"
    case simpleWrite = "EncryptedSimpleWrite"
    case fullScan = "EncryptedFullScan"
    case primaryKeyLookup = "EncryptedPrimaryKeyLookup"

    /// Target ratio against SQLCipher.
    static let target = 0.5
    /// Target ratio against our own unencrypted time.
    static let overheadTarget = 1.5
}

/// Runs the encrypted workloads, AsyncRealm and SQLCipher taking turns, with a plain realm
/// doing the same work in the same turns; median seconds per workload and engine
/// (`asyncrealm`, `plain`, `sqlcipher`).
///
/// The plain realm's times are measured here rather than taken from the object workloads:
/// a virtual machine's slow spells last seconds, and a ratio of times measured minutes apart
/// measured the machine (an encrypted scan at 1.66 of a plain one in one run, 1.01-1.06 in
/// others, doing the same work). Next to each other, encrypted and plain see the same machine.
func runEncryptedWorkloads(directory: String, objectCount: Int, runs: Int, only: Set<String>?, peers: Bool) throws -> [EncryptedWorkload: [String: Double]] {
    let workloads = EncryptedWorkload.allCases.filter { only?.contains($0.rawValue) ?? true }
    guard !workloads.isEmpty else { return [:] }
    let key = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
    let data = ObjectWorkloadData(objectCount: objectCount, runs: runs)
    let (rows, extra, lookupIDs) = (data.rows, data.extra, data.lookupIDs)
    let peer = peers ? SQLCipherClient(directory: directory, objectCount: objectCount, runs: runs, key: Array(key[..<32])) : nil
    let realmURL = URL(fileURLWithPath: directory + "/encrypted.realm")
    let plainURL = URL(fileURLWithPath: directory + "/plain-beside-encrypted.realm")
    var samples: [String: [EncryptedWorkload: [Double]]] = [:]
    var checksum = 0
    for run in 0...runs {
        for url in [realmURL, plainURL] {
            for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: realmURL, encryptionKey: Data(key), objectTypes: [BenchObject.self]))
        let plainRealm = try Realm(configuration: Realm.Configuration(fileURL: plainURL, objectTypes: [BenchObject.self]))
        try peer?.run("fresh")
        /// Seconds of `body` on the encrypted realm, on the plain one and of `command` on
        /// SQLCipher; encrypted and plain always run one right after the other, in turns.
        func turns(_ workload: EncryptedWorkload, first turn: Int, _ body: (Realm) throws -> Void, _ command: String) throws -> [String: Double] {
            var seconds: [String: Double] = [:]
            for engine in turn % 2 == 0 ? ["asyncrealm", "plain", "sqlcipher"] : ["sqlcipher", "plain", "asyncrealm"] {
                switch engine {
                case "asyncrealm": seconds[engine] = try measure { try body(realm) }
                case "plain": seconds[engine] = try measure { try body(plainRealm) }
                default: if let peer { seconds[engine] = try peer.run(command).seconds }
                }
            }
            return seconds
        }
        func record(_ workload: EncryptedWorkload, _ seconds: [String: Double]) {
            guard run > 0 else { return }
            for (engine, value) in seconds { samples[engine, default: [:]][workload, default: []].append(value) }
        }
        record(.batchWrite, try turns(.batchWrite, first: run, { realm in
            try realm.write { for row in rows { realm.add(row.object()) } }
        }, "batch"))
        var simple: [String: Double] = [:]
        let chunk = 100
        for (index, start) in stride(from: run * 1000, to: run * 1000 + 1000, by: chunk).enumerated() {
            let part = extra[start..<(start + chunk)]
            simple.merge(try turns(.simpleWrite, first: run + index, { realm in
                for row in part { try realm.write { realm.add(row.object()) } }
            }, "simple \(start) \(chunk)"), uniquingKeysWith: +)
        }
        record(.simpleWrite, simple)
        record(.fullScan, try turns(.fullScan, first: run, { realm in
            for object in realm.objects(BenchObject.self) {
                checksum &+= object.id &+ object.name.utf8.count &+ object.age &+ Int(object.score) &+ (object.active ? 1 : 0) &+ Int(object.created.timeIntervalSince1970)
            }
        }, "scan"))
        record(.primaryKeyLookup, try turns(.primaryKeyLookup, first: run, { realm in
            for id in lookupIDs { checksum &+= realm.object(ofType: BenchObject.self, forPrimaryKey: id)?.name.utf8.count ?? 0 }
        }, "lookup"))
    }
    if checksum == 42 { print("") }  // keeps the reads from being optimised away
    var results: [EncryptedWorkload: [String: Double]] = [:]
    for (engine, byWorkload) in samples {
        for (workload, values) in byWorkload where workloads.contains(workload) { results[workload, default: [:]][engine] = median(values) }
    }
    return results
}

/// Prints the encrypted workloads against SQLCipher and against a plain realm's times, and
/// what `EncryptedSimpleWrite`'s 1,000 commits cannot take less than on this machine: each
/// waits for a durable write at least (`durableWrite`, nanoseconds; see `MachineProfile`).
func printEncryptedTable(_ seconds: [EncryptedWorkload: [String: Double]], durableWrite: Double) {
    guard !seconds.isEmpty else { return }
    print("")
    print("| workload | asyncrealm s | sqlcipher s | asyncrealm/sqlcipher | target | encrypted/plain asyncrealm | target |")
    print("| --- | ---: | ---: | ---: | --- | ---: | --- |")
    for workload in EncryptedWorkload.allCases {
        guard let ours = seconds[workload]?["asyncrealm"] else { continue }
        var cells = ["| \(workload.rawValue) | \(format(ours))"]
        if let peer = seconds[workload]?["sqlcipher"] {
            let ratio = ours / peer
            cells.append("\(format(peer)) | \(String(format: "%.2f", ratio)) | <= \(EncryptedWorkload.target) \(ratio <= EncryptedWorkload.target ? "met" : "MISSED")")
        } else {
            cells.append(" | | ")
        }
        if let unencrypted = seconds[workload]?["plain"] {
            let ratio = ours / unencrypted
            cells.append("\(String(format: "%.2f", ratio)) | <= \(EncryptedWorkload.overheadTarget) \(ratio <= EncryptedWorkload.overheadTarget ? "met" : "MISSED") |")
        } else {
            cells.append(" | |")
        }
        print(cells.joined(separator: " | "))
    }
    if let peer = seconds[.simpleWrite]?["sqlcipher"], durableWrite > 0 {
        let floor = durableWrite * 1000 / 1e9
        print("")
        print(String(
            format: "EncryptedSimpleWrite's floor: 1,000 commits each wait for a durable write (%.0f µs here), %.4f s for either engine; its target, %.2f of SQLCipher's %.4f s, is %.4f s",
            durableWrite / 1000, floor, EncryptedWorkload.target, peer, peer * EncryptedWorkload.target))
    }
}
