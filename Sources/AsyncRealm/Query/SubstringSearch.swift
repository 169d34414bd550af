/// Whether a sequence holds another, in time linear in both (Knuth, Morris and Pratt): the
/// naive search compares the needle again at every position, which is quadratic when the
/// needle is long and its start repeats in the text (a 50,000-character needle in a
/// 100,000-character value took seconds). The query engine's own searches try each position
/// directly while the needle is short, where that is faster, and come here past
/// `longNeedle` elements.
struct SubstringSearch<Element: Equatable> {
    /// Needles longer than this are searched for here.
    static var longNeedle: Int { 16 }

    private let needle: [Element]
    /// For each prefix of the needle, the length of its longest proper prefix that is also
    /// its suffix: where the search resumes after a mismatch, without moving back in the text.
    private let fallback: [Int]

    init(_ needle: [Element]) {
        self.needle = needle
        var fallback = [Int](repeating: 0, count: needle.count)
        var length = 0
        for position in needle.indices.dropFirst() {
            while length > 0 && needle[position] != needle[length] { length = fallback[length - 1] }
            if needle[position] == needle[length] { length += 1 }
            fallback[position] = length
        }
        self.fallback = fallback
    }

    /// Whether the `count` elements `element(0)`, `element(1)`... hold the needle.
    func isFound(in count: Int, _ element: (Int) -> Element) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= count else { return false }
        var matched = 0
        for position in 0..<count {
            let next = element(position)
            while matched > 0 && next != needle[matched] { matched = fallback[matched - 1] }
            if next == needle[matched] { matched += 1 }
            if matched == needle.count { return true }
        }
        return false
    }
}
