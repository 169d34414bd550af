/// An ordered cursor over a tree: a path of branches down to the current leaf.
///
/// Valid as long as the tree it reads does not change; snapshot trees never do.
package struct TreeCursor<Tree: TreeReading> {
    private let tree: Tree
    private var path: [(branch: Branch, index: Int)] = []
    private var leaf = Leaf()
    private var index = 0
    private var exhausted = false

    init(tree: Tree, from key: UInt64) throws {
        self.tree = tree
        var child = tree.rootChild
        while true {
            switch try tree.node(child) {
            case .branch(let branch):
                let position = branch.childIndex(for: key)
                path.append((branch, position))
                child = branch.children[position]
            case .leaf(let found):
                leaf = found
                index = found.search(key).index
                try settle()
                return
            }
        }
    }

    /// The key under the cursor, or nil past the end.
    package var key: UInt64? { exhausted ? nil : leaf.keys[index] }

    /// Calls `body` with the value under the cursor. Must not be called past the end.
    package func withValue<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        require(!exhausted, "TreeCursor.withValue called past the end; check `key` first")
        return try leaf.withValue(at: index, store: tree.store, body)
    }

    package func value() throws -> [UInt8] {
        try withValue { Array($0) }
    }

    package mutating func advance() throws {
        guard !exhausted else { return }
        index += 1
        try settle()
    }

    /// Moves to the next leaf while the current one is used up.
    private mutating func settle() throws {
        while index >= leaf.count {
            // Climb to the first ancestor with a child to the right, then take its leftmost path.
            while let last = path.last, last.index + 1 >= last.branch.children.count {
                path.removeLast()
            }
            guard !path.isEmpty else {
                exhausted = true
                return
            }
            path[path.count - 1].index += 1
            var child = path[path.count - 1].branch.children[path[path.count - 1].index]
            while true {
                switch try tree.node(child) {
                case .branch(let branch):
                    path.append((branch, 0))
                    child = branch.children[0]
                    continue
                case .leaf(let next):
                    leaf = next
                    index = 0
                }
                break
            }
        }
    }
}
