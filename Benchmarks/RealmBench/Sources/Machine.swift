import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the machine the benchmark runs on charges for the things the engines spend their time
/// on differently (`Docs/Internals/Benchmarks.md`): a system call, which every SQLite
/// statement makes (two `fcntl` calls for its read lock) and an AsyncRealm read does not; and a
/// load that misses the caches, which a random lookup of either waits for; and a write made
/// durable, which every commit of either waits for once. Printed at the top of
/// a run, so that a pasted table says which machine its ratios came from.
struct MachineProfile {
    /// The processor's model name, as `/proc/cpuinfo` gives it.
    var processor: String
    var cores: Int
    /// Nanoseconds of one system call that does nothing (`getppid`).
    var systemCall: Double
    /// Nanoseconds to take and drop a one-byte read lock with `fcntl`, as SQLite does on its WAL
    /// index for every statement outside a transaction.
    var lockAndUnlock: Double
    /// Nanoseconds of a load whose address the load before it gave, over random lines of
    /// 64 MiB: a random lookup's wait for memory.
    var dependentLoad: Double
    /// Nanoseconds to write 4 KiB over a block of a file already on the disk and wait until the
    /// device has it (`pwrite` and `fdatasync`, no metadata to flush): the floor of a durable
    /// commit of either engine, which waits for one such flush.
    var durableWrite: Double

    static func measure(directory: String) -> MachineProfile {
        MachineProfile(
            processor: processorName(), cores: ProcessInfo.processInfo.activeProcessorCount,
            systemCall: timeSystemCalls(), lockAndUnlock: timeLocks(directory: directory),
            dependentLoad: timeDependentLoads(bytes: 64 << 20), durableWrite: timeDurableWrites(directory: directory))
    }

    var description: String {
        String(
            format: "machine: %@, %d cores; a system call %.0f ns, an fcntl lock and unlock %.0f ns, a dependent load within 64 MiB %.0f ns, a durable 4 KiB write %.0f µs",
            processor, cores, systemCall, lockAndUnlock, dependentLoad, durableWrite / 1000)
    }

    private static func processorName() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        guard let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
              let colon = line.firstIndex(of: ":") else { return "unknown processor" }
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }

    /// The best of five rounds, each the mean of `count` calls of `body`, in nanoseconds: the
    /// machine's cost, not a neighbour's moment.
    private static func nanoseconds(each count: Int, _ body: () -> Void) -> Double {
        (0..<5).map { _ in
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<count { body() }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count)
        }.min() ?? 0
    }

    private static func timeSystemCalls() -> Double {
        var sum: pid_t = 0
        let time = nanoseconds(each: 20_000) { sum &+= getppid() }
        return sum == -1 ? 0 : time
    }

    private static func timeLocks(directory: String) -> Double {
        let path = directory + "/machine.lock"
        let descriptor = open(path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor); unlink(path) }
        var lock = flock()
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 120
        lock.l_len = 1
        return nanoseconds(each: 5_000) {
            lock.l_type = Int16(F_RDLCK)
            _ = fcntl(descriptor, F_SETLK, &lock)
            lock.l_type = Int16(F_UNLCK)
            _ = fcntl(descriptor, F_SETLK, &lock)
        }
    }

    private static func timeDurableWrites(directory: String) -> Double {
        let path = directory + "/machine.flush"
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor); unlink(path) }
        let block = [UInt8](repeating: 7, count: 4096)
        // Written and flushed first, so that the timed writes change no block map or size.
        guard pwrite(descriptor, block, block.count, 0) == block.count, fsync(descriptor) == 0 else { return 0 }
        var failed = false
        let time = nanoseconds(each: 100) {
            failed = failed || pwrite(descriptor, block, block.count, 0) != block.count || fdatasync(descriptor) != 0
        }
        return failed ? 0 : time
    }

    /// A chase over the lines of `bytes` of memory in one random cycle, each line holding the
    /// index of the next.
    private static func timeDependentLoads(bytes: Int) -> Double {
        let lines = bytes / 64
        let intsPerLine = 8
        var order = Array(0..<lines)
        var generator = BenchGenerator(seed: 5)
        for index in stride(from: lines - 1, to: 0, by: -1) {
            order.swapAt(index, Int(generator.next() % UInt64(index + 1)))
        }
        var memory = [Int](repeating: 0, count: lines * intsPerLine)
        for position in 0..<lines { memory[order[position] * intsPerLine] = order[(position + 1) % lines] * intsPerLine }
        return memory.withUnsafeBufferPointer { memory in
            var next = 0
            for _ in 0..<lines { next = memory[next] }  // every line once: the pages are touched
            let time = nanoseconds(each: 200_000) { next = memory[next] }
            return next == -1 ? 0 : time
        }
    }
}
