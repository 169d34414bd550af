import Foundation

/// UIKit's spellings of an index path of a section and an item (or row), which RealmSwift's
/// sectioned results use and Foundation on Linux does not have: `IndexPath(item: 2, section: 0)`.
extension IndexPath {
    /// The index path of item `item` of section `section`.
    ///
    /// - Parameters:
    ///   - item: The item's position in its section.
    ///   - section: The section's position.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The index path of row `row` of section `section`, the same as `init(item:section:)`.
    ///
    /// - Parameters:
    ///   - row: The row's position in its section.
    ///   - section: The section's position.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The section: the first index.
    public var section: Int {
        require(count == 2, "\(self) is not an index path of a section and an item; make it with IndexPath(item:section:)")
        return self[0]
    }

    /// The item in the section: the second index.
    public var item: Int {
        require(count == 2, "\(self) is not an index path of a section and an item; make it with IndexPath(item:section:)")
        return self[1]
    }

    /// The row in the section, the same as `item`.
    public var row: Int { item }
}
