import Foundation

/// A value the typed predicate builder can compare with: the scalar types of record fields.
///
/// ```swift
/// let p = Predicate.field("type") == "Thai" && Predicate.field("rating") >= 3
/// ```
/// `Asset` and arrays are deliberately absent: assets cannot be queried, and lists go
/// through ``Predicate/Field/in(_:)``.
public protocol PredicateArgument: Sendable {}

extension String: PredicateArgument {}
extension Int: PredicateArgument {}
extension Int64: PredicateArgument {}
extension Int32: PredicateArgument {}
extension Double: PredicateArgument {}
extension Float: PredicateArgument {}
extension Bool: PredicateArgument {}
extension Date: PredicateArgument {}
extension Data: PredicateArgument {}
extension Location: PredicateArgument {}
extension Record.ID: PredicateArgument {}
extension Record.Reference: PredicateArgument {}
