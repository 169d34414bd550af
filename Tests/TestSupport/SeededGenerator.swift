import Foundation

/// A small, fast, seedable generator (xorshift64*), so failures replay from their seed.
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    package mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
}

/// A seed from the environment (`ASYNCREALM_SEED`) or a fresh one; tests print it on failure.
package func testSeed() -> UInt64 {
    if let text = ProcessInfo.processInfo.environment["ASYNCREALM_SEED"], let seed = UInt64(text) { return seed }
    return UInt64.random(in: 1...UInt64.max)
}
