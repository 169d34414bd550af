/// Sizes that shape the trees.
package enum TreeLayout {
    /// A leaf is split once its encoded body passes this size (before compression).
    static let maxLeafBytes = 8 * 1024
    /// A branch is split once it has more children than this.
    static let maxBranchChildren = 512
    /// Values longer than this are stored in an overflow page of their own.
    static let overflowThreshold = maxLeafBytes / 4
    /// A node smaller than this after a delete is merged with a neighbour if they fit together.
    static let minLeafBytes = maxLeafBytes / 4
    static let minBranchChildren = maxBranchChildren / 4
}
