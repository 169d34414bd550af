import Glibc
import StorageEngine

/// A buffered writer to a file descriptor: an export of a million objects makes one system
/// call per 64 KiB, not one per value.
final class Output {
    nonisolated(unsafe) static let standard = Output(descriptor: STDOUT_FILENO)
    nonisolated(unsafe) static let error = Output(descriptor: STDERR_FILENO)

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private static let capacity = 1 << 16

    init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(Self.capacity)
    }

    /// Whether the descriptor is a terminal (a person is watching it).
    var isTerminal: Bool { isatty(descriptor) == 1 }

    func write(_ text: String) {
        text.withUTF8InPlace { buffer.append(contentsOf: $0) }
        if buffer.count >= Self.capacity { flush() }
    }

    /// Writes out what is buffered. A reader that went away (`asyncrealm export | head`) ends
    /// the program quietly, as it would end `cat`.
    func flush() {
        var written = 0
        while written < buffer.count {
            let result = buffer.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { exit(0) }
                return
            }
            written += result
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
