import AsyncRealm
import Foundation

/// The object workloads on an encrypted realm, against SQLCipher (`PRAGMA key` with a raw
/// key, WAL, `synchronous=FULL`, the same page cache) doing the same work in its own process.
enum EncryptedWorkload: String, CaseIterable {
    case batchWrite = "EncryptedBatchWrite"
    case simpleWrite = "EncryptedSimpleWrite"
    case fullScan = "EncryptedFullScan"
    case primaryKeyLookup = "EncryptedPrimaryKeyLookup"

    /// The same workload on a plain realm, whose time ours must stay within 1.5x of.
    var plain: ObjectWorkload {
        switch self {
        case .batchWrite: .batchWrite
        case .simpleWrite: .simpleWrite
        case .fullScan: .fullScan
        case .primaryKeyLookup: .primaryKeyLookup
        }
    }

    /// Target ratio against SQLCipher.
    static let target = 0.5
    /// Target ratio against our own unencrypted time.
    static let overheadTarget = 1.5
}

/// Runs the encrypted workloads, AsyncRealm and SQLCipher taking turns; median seconds per
/// workload and engine (`asyncrealm`, `sqlcipher`).
func runEncryptedWorkloads(directory: String, objectCount: Int, runs: Int, only: Set<String>?, peers: Bool) throws -> [EncryptedWorkload: [String: Double]] {
    let workloads = EncryptedWorkload.allCases.filter { only?.contains($0.rawValue) ?? true }
    guard !workloads.isEmpty else { return [:] }
    let key = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
    let data = ObjectWorkloadData(objectCount: objectCount, runs: runs)
    let (rows, extra, lookupIDs) = (data.rows, data.extra, data.lookupIDs)
    let peer = peers ? SQLCipherClient(directory: directory, objectCount: objectCount, runs: runs, key: Array(key[..<32])) : nil
    let realmURL = URL(fileURLWithPath: directory + "/encrypted.realm")
    var samples: [String: [EncryptedWorkload: [Double]]] = [:]
    var checksum = 0
    for run in 0...runs {
        for suffix in ["", ".lock", ".log"] { try? FileManager.default.removeItem(atPath: realmURL.path + suffix) }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: realmURL, encryptionKey: Data(key), objectTypes: [BenchObject.self]))
        try peer?.run("fresh")
        func turns(_ workload: EncryptedWorkload, first turn: Int, _ body: () throws -> Void, _ command: String) throws -> [String: Double] {
            var seconds: [String: Double] = [:]
            for engine in turn % 2 == 0 ? ["asyncrealm", "sqlcipher"] : ["sqlcipher", "asyncrealm"] {
                if engine == "asyncrealm" {
                    seconds[engine] = try measure(body)
                } else if let peer {
                    seconds[engine] = try peer.run(command).seconds
                }
            }
            return seconds
        }
        func record(_ workload: EncryptedWorkload, _ seconds: [String: Double]) {
            guard run > 0 else { return }
            for (engine, value) in seconds { samples[engine, default: [:]][workload, default: []].append(value) }
        }
        record(.batchWrite, try turns(.batchWrite, first: run, {
            try realm.write { for row in rows { realm.add(row.object()) } }
        }, "batch"))
        var simple: [String: Double] = [:]
        let chunk = 100
        for (index, start) in stride(from: run * 1000, to: run * 1000 + 1000, by: chunk).enumerated() {
            let part = extra[start..<(start + chunk)]
            simple.merge(try turns(.simpleWrite, first: run + index, {
                for row in part { try realm.write { realm.add(row.object()) } }
            }, "simple \(start) \(chunk)"), uniquingKeysWith: +)
        }
        record(.simpleWrite, simple)
        record(.fullScan, try turns(.fullScan, first: run, {
            for object in realm.objects(BenchObject.self) {
                checksum &+= object.id &+ object.name.utf8.count &+ object.age &+ Int(object.score) &+ (object.active ? 1 : 0) &+ Int(object.created.timeIntervalSince1970)
            }
        }, "scan"))
        record(.primaryKeyLookup, try turns(.primaryKeyLookup, first: run, {
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

/// Prints the encrypted workloads against SQLCipher and against our own plain times.
func printEncryptedTable(_ seconds: [EncryptedWorkload: [String: Double]], plain: [ObjectWorkload: [String: Double]]) {
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
        if let unencrypted = plain[workload.plain]?["asyncrealm"] {
            let ratio = ours / unencrypted
            cells.append("\(String(format: "%.2f", ratio)) | <= \(EncryptedWorkload.overheadTarget) \(ratio <= EncryptedWorkload.overheadTarget ? "met" : "MISSED") |")
        } else {
            cells.append(" | |")
        }
        print(cells.joined(separator: " | "))
    }
}
