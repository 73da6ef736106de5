/// The `comparator` of a CloudKit Web Services query filter, and the predicate node each one builds.
///
/// ```swift
/// QueryComparator(rawValue: "LIST_CONTAINS_ANY")   // → .listContainsAny: ANY tags IN {…}
/// ```
/// The `NOT_` forms are ``PredicateRules/not(_:)`` around the positive form; NOT_EQUALS is `!=`.
enum QueryComparator: String, CaseIterable, Sendable {
    case equals = "EQUALS"
    case notEquals = "NOT_EQUALS"
    case lessThan = "LESS_THAN"
    case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
    case greaterThan = "GREATER_THAN"
    case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
    case near = "NEAR"
    case containsAllTokens = "CONTAINS_ALL_TOKENS"
    case containsAnyTokens = "CONTAINS_ANY_TOKENS"
    case `in` = "IN"
    case notIn = "NOT_IN"
    case listContains = "LIST_CONTAINS"
    case notListContains = "NOT_LIST_CONTAINS"
    case listContainsAny = "LIST_CONTAINS_ANY"
    case notListContainsAny = "NOT_LIST_CONTAINS_ANY"
    case listContainsAll = "LIST_CONTAINS_ALL"
    case notListContainsAll = "NOT_LIST_CONTAINS_ALL"
    case beginsWith = "BEGINS_WITH"
    case notBeginsWith = "NOT_BEGINS_WITH"
    case listMemberBeginsWith = "LIST_MEMBER_BEGINS_WITH"
    case notListMemberBeginsWith = "NOT_LIST_MEMBER_BEGINS_WITH"
    /// LocalCloud's search as you type (``Predicate/textSearch(asTyped:)``), not a CloudKit
    /// comparator: the `LOCALCLOUD_` prefix keeps it apart from any CloudKit adds.
    case containsAsTyped = "LOCALCLOUD_CONTAINS_AS_TYPED"

    /// What the comparator's `fieldValue` must be.
    enum Operand {
        /// One value (a list is refused).
        case scalar
        /// A list of values.
        case list
        /// A string.
        case text
        /// A location, with `distance` in metres beside it.
        case location
    }

    var operand: Operand {
        switch self {
        case .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals,
             .listContains, .notListContains:
            .scalar
        case .in, .notIn, .listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll:
            .list
        case .containsAllTokens, .containsAnyTokens, .containsAsTyped, .beginsWith, .notBeginsWith, .listMemberBeginsWith, .notListMemberBeginsWith:
            .text
        case .near:
            .location
        }
    }

    /// Whether the comparator searches the record's tokens rather than one field.
    var isTokenSearch: Bool { self == .containsAllTokens || self == .containsAnyTokens || self == .containsAsTyped }

    /// The predicate node for `key` and a decoded operand, checked by ``PredicateRules``.
    ///
    /// - Parameter kilometres: the NEAR radius, already converted from the request's metres.
    func node(key: PredicateKey, value: FieldValue, kilometres: Double? = nil) throws -> PredicateNode {
        switch self {
        case .equals: try PredicateRules.comparison(key, .equal, value)
        case .notEquals: try PredicateRules.comparison(key, .notEqual, value)
        case .lessThan: try PredicateRules.comparison(key, .less, value)
        case .lessThanOrEquals: try PredicateRules.comparison(key, .lessOrEqual, value)
        case .greaterThan: try PredicateRules.comparison(key, .greater, value)
        case .greaterThanOrEquals: try PredicateRules.comparison(key, .greaterOrEqual, value)
        case .near: try PredicateRules.distance(key, value, .lessOrEqual, .double(kilometres ?? 0))
        case .containsAllTokens: try PredicateRules.textSearch(value)
        case .containsAnyTokens: try PredicateRules.textSearch(anyWordOf: value)
        case .containsAsTyped: try PredicateRules.textSearch(asTyped: value)
        case .in: try PredicateRules.in(key, value)
        case .notIn: try PredicateRules.not(PredicateRules.in(key, value))
        case .listContains: try PredicateRules.listContains(key, value)
        case .notListContains: try PredicateRules.not(PredicateRules.listContains(key, value))
        case .listContainsAny: try PredicateRules.listContainsAny(key, value)
        case .notListContainsAny: try PredicateRules.not(PredicateRules.listContainsAny(key, value))
        case .listContainsAll: try PredicateRules.listContainsAll(key, value)
        case .notListContainsAll: try PredicateRules.not(PredicateRules.listContainsAll(key, value))
        case .beginsWith: try PredicateRules.beginsWith(key, value)
        case .notBeginsWith: try PredicateRules.not(PredicateRules.beginsWith(key, value))
        case .listMemberBeginsWith: try PredicateRules.listMemberBeginsWith(key, value)
        case .notListMemberBeginsWith: try PredicateRules.not(PredicateRules.listMemberBeginsWith(key, value))
        }
    }
}
