/// A decoded page of a tree.
package enum Node: Sendable {
    case leaf(Leaf)
    case branch(Branch)
}
