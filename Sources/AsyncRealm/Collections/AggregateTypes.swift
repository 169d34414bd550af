import Foundation

// RealmSwift's names for the types its aggregates and sorts take, so that code written against
// them compiles here. Each refines `_Persistable`, which is what `min(ofProperty:)` and its
// siblings ask of the type they return: a function generic over `T: MinMaxType` can call them.
// (`AddableType`, which sums and means need more of, is in `ValueAggregates.swift`.)

/// The types `min(ofProperty:)` and `max(ofProperty:)` can return, as in RealmSwift: the
/// integer types, `Float`, `Double`, `Decimal128`, `Date`, `AnyRealmValue`, and their optionals.
///
///     func earliest<T: MinMaxType>(_ property: String, in results: Results<Order>) -> T? {
///         results.min(ofProperty: property)
///     }
public protocol MinMaxType: _Persistable {}

extension Int: MinMaxType {}
extension Int8: MinMaxType {}
extension Int16: MinMaxType {}
extension Int32: MinMaxType {}
extension Int64: MinMaxType {}
extension Float: MinMaxType {}
extension Double: MinMaxType {}
extension Decimal: MinMaxType {}
extension Date: MinMaxType {}
extension AnyRealmValue: MinMaxType {}
extension Optional: MinMaxType where Wrapped: MinMaxType & _PersistableInsideOptional {}

/// The types a collection of values can be sorted and made distinct by, as in RealmSwift: the
/// integer types, `Float`, `Double`, `Decimal128`, `Date`, `String`, `Data`, `AnyRealmValue`,
/// and their optionals.
///
/// The sorts of collections of values here (`sorted(ascending:)`) ask for `Comparable`
/// elements, which every one of these but `Data` and `AnyRealmValue` is; a function generic
/// over `SortableType` alone cannot call them.
public protocol SortableType: _Persistable {}

extension Int: SortableType {}
extension Int8: SortableType {}
extension Int16: SortableType {}
extension Int32: SortableType {}
extension Int64: SortableType {}
extension Float: SortableType {}
extension Double: SortableType {}
extension Decimal: SortableType {}
extension Date: SortableType {}
extension String: SortableType {}
extension Data: SortableType {}
extension AnyRealmValue: SortableType {}
extension Optional: SortableType where Wrapped: SortableType & _PersistableInsideOptional {}

/// The types whose properties collections can be sorted and made distinct by, as in
/// RealmSwift: objects and projections.
public protocol KeypathSortable {}

extension Object: KeypathSortable {}
extension Projection: KeypathSortable {}
