import Testing
import TestSupport
@testable import StorageEngine

@Suite("The page cache's table of attached objects")
struct AttachmentTableTests {
    final class Attached: Sendable {
        let number: Int
        init(_ number: Int) { self.number = number }
    }

    /// Keys that crowd a small table: offsets of pages close together, a few tags each, and a
    /// reused offset under another checksum.
    static func key(_ number: Int) -> AttachmentTable.Key {
        AttachmentTable.Key(offset: UInt64(4096 * (1 + number / 3)), checksum: UInt64(number % 5), tag: number % 3)
    }

    @Test("inserts, lookups and the CLOCK's evictions agree with a model, through growth and removals that shift entries back")
    func agreesWithModel() {
        let seed = testSeed()
        var random = SeededGenerator(seed: seed)
        let table = AttachmentTable()
        var model: [Int: (cost: Int, referenced: Bool)] = [:]
        for step in 0..<20_000 {
            let number = Int.random(in: 0..<600, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                guard model[number] == nil else { continue }
                table.insert(Attached(number), cost: number + 1, under: Self.key(number))
                model[number] = (number + 1, true)
            case 4..<7:
                let found = table.use(Self.key(number)) as? Attached
                #expect(found?.number == (model[number] != nil ? number : nil), "step \(step), key \(number) (seed \(seed))")
                if model[number] != nil { model[number]!.referenced = true }
            default:
                let before = Set(model.keys.filter { table.contains(Self.key($0)) })
                #expect(before.count == model.count, "step \(step): a key kept is lost (seed \(seed))")
                let freed = table.stepClock()
                let gone = model.keys.filter { !table.contains(Self.key($0)) }
                if let freed {
                    // One entry went: one the hand found unused since its last pass.
                    #expect(gone.count == 1, "step \(step) (seed \(seed))")
                    if let number = gone.first {
                        #expect(freed == number + 1 && model[number]?.referenced == false, "step \(step), key \(number) (seed \(seed))")
                        model[number] = nil
                    }
                } else {
                    #expect(gone.isEmpty, "step \(step) (seed \(seed))")
                    // The hand may have cleared one bit; which one the model cannot tell, so
                    // it forgets every bit it could have been.
                    for number in model.keys { model[number]!.referenced = false }
                }
            }
            #expect(table.count == model.count, "step \(step) (seed \(seed))")
        }
    }

    @Test("an entry used since the hand's last pass survives it; the rest go within two passes")
    func secondChance() {
        let table = AttachmentTable()
        for number in 0..<100 { table.insert(Attached(number), cost: 1, under: Self.key(number)) }
        let passes = table.capacity
        // A first pass clears every bit, evicting nothing.
        for _ in 0..<passes { #expect(table.stepClock() == nil) }
        #expect(table.count == 100)
        for number in 0..<50 { _ = table.use(Self.key(number)) }
        // The second pass evicts the fifty not used since, and keeps the fifty used.
        var freed = 0
        for _ in 0..<(2 * passes) where table.count > 50 { freed += table.stepClock() ?? 0 }
        #expect(freed == 50 && table.count == 50)
        for number in 0..<100 { #expect(table.contains(Self.key(number)) == (number < 50), "key \(number)") }
        // Unused from now on, they all go.
        for _ in 0..<(3 * passes) { _ = table.stepClock() }
        #expect(table.count == 0)
    }

    @Test("growing the table keeps each entry's reference bit: used entries survive the next pass, unused ones go")
    func growthKeepsReferenceBits() {
        let table = AttachmentTable()
        for number in 0..<20 { table.insert(Attached(number), cost: 1, under: Self.key(number)) }
        // A pass clears every bit, evicting nothing; then half are used again.
        for _ in 0..<table.capacity { #expect(table.stepClock() == nil) }
        for number in 0..<10 { _ = table.use(Self.key(number)) }
        let capacity = table.capacity
        for number in 20..<40 { table.insert(Attached(number), cost: 1, under: Self.key(number)) }
        #expect(table.capacity > capacity, "the inserts were meant to grow the table")
        // One pass of the hand over the grown table, its ten evictions each keeping the hand
        // in place for a step.
        for _ in 0..<(table.capacity + 10) { _ = table.stepClock() }
        for number in 0..<40 {
            #expect(table.contains(Self.key(number)) == !(10..<20).contains(number), "key \(number)")
        }
    }
}
