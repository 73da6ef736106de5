import Foundation

/// The parsed, validated form of a ``Predicate``: what the query compiler turns into SQL.
///
/// Only forms CloudKit allows can be represented, so anything the parser
/// accepts is safe to compile. Values are bound as SQL arguments, never spliced.
package indirect enum PredicateNode: Sendable, Equatable {
    case truePredicate
    case falsePredicate
    case and([PredicateNode])
    /// CloudKit allows NOT only around a single comparison, `IN`, `BEGINSWITH` or a list match; the rules enforce that.
    case not(PredicateNode)
    case comparison(PredicateKey, ComparisonOperator, FieldValue)
    /// `key BETWEEN {lower, upper}`, inclusive.
    case between(PredicateKey, FieldValue, FieldValue)
    case beginsWith(PredicateKey, String)
    /// `key IN {a, b, c}` or `key IN %@` with an array.
    case `in`(PredicateKey, [FieldValue])
    /// `listField CONTAINS value`: membership in a list field.
    case listContains(PredicateKey, FieldValue)
    /// `ANY listField IN {a, b}`: the list field holds at least one of the values (two or more).
    case listContainsAny(PredicateKey, [FieldValue])
    /// `ALL {a, b} IN listField`: the list field holds every one of the values (two or more).
    case listContainsAll(PredicateKey, [FieldValue])
    /// `ANY listField BEGINSWITH 'p'`: some string in the list field starts with the prefix.
    case listMemberBeginsWith(PredicateKey, String)
    /// `self CONTAINS 'text'`: tokenized full-text match over string fields; every word must appear.
    case textSearch(String)
    /// `self CONTAINS 'a' OR self CONTAINS 'b'`: at least one of the words appears (two or more,
    /// each a single word as written). The only OR CloudKit's token search has.
    case textSearchAny([String])
    /// `self CONTAINS_AS_TYPED 'text'` (a LocalCloud extension): search as you type. Finished
    /// words match whole tokens, the word being typed the start of one, CJK runs any part of
    /// the text (``TypedSearchTerms``).
    case textSearchAsTyped(String)
    /// `distanceToLocation:fromLocation:(key, location) < kilometres` (or `<=`, `>`, `>=`).
    case distance(PredicateKey, Location, ComparisonOperator, kilometres: Double)
}

/// What a predicate compares: a user field or one of the system fields.
package enum PredicateKey: Sendable, Hashable {
    case field(String)
    case creationDate
    case modificationDate
    /// `recordID` or `recordName`; compared values are record names.
    case recordName
    case creatorUserRecordID
    case lastModifiedUserRecordID
}

package enum ComparisonOperator: String, Sendable, Hashable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}
