/// Sizes that shape the trees.
package enum TreeLayout {
    /// A leaf is split once its encoded body passes this size (before compression).
    package static let maxLeafBytes = 8 * 1024
    /// A branch is split once it has more children than this.
    package static let maxBranchChildren = 512
    /// Values longer than this are stored in an overflow page of their own.
    package static let overflowThreshold = maxLeafBytes / 4
    /// A node smaller than this after a delete is merged with a neighbour if they fit together.
    package static let minLeafBytes = maxLeafBytes / 4
    package static let minBranchChildren = maxBranchChildren / 4
}
