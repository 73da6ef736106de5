import Foundation

/// A typed way to build predicates without format strings; only forms CloudKit allows can be built.
///
/// ```swift
/// let thai = Predicate.field("type") == "Thai" && Predicate.field("rating") > 3
/// let near = Predicate.field("location").distance(from: here) < 5   // kilometres
/// let recent = Predicate.Field.creationDate > Date(timeIntervalSinceNow: -86_400)
/// let tagged = Predicate.field("tags").containsAny(["vegan", "halal"])
/// ```
/// A misuse the types cannot catch (a bad key name, `BEGINSWITH` on `recordID`, `!` around
/// an AND) is remembered like a bad format and surfaces as `invalidArguments` when the query runs.
extension Predicate {
    /// A field or system key to compare.
    public struct Field: Sendable {
        let key: Result<PredicateKey, CloudError>

        init(_ name: String) {
            key = Result { try PredicateRules.key(named: name) }.mapError { $0 as? CloudError ?? PredicateRules.error("\($0)") }
        }

        public static let creationDate = Field("creationDate")
        public static let modificationDate = Field("modificationDate")
        /// The record's ID; compare with a `Record.ID`, a `Record.Reference` or a record name.
        public static let recordID = Field("recordID")
        public static let recordName = Field("recordName")
        public static let creatorUserRecordID = Field("creatorUserRecordID")
        public static let lastModifiedUserRecordID = Field("lastModifiedUserRecordID")

        private func build(_ values: [any PredicateArgument], _ make: (PredicateKey, [FieldValue]) throws -> PredicateNode) -> Predicate {
            Predicate(building: {
                let key = try self.key.get()
                return try make(key, try values.map { try PredicateRules.value(from: $0, label: "value") })
            })
        }

        public static func == (field: Field, value: some PredicateArgument) -> Predicate {
            field.build([value]) { try PredicateRules.comparison($0, .equal, $1[0]) }
        }

        public static func != (field: Field, value: some PredicateArgument) -> Predicate {
            field.build([value]) { try PredicateRules.comparison($0, .notEqual, $1[0]) }
        }

        public static func < (field: Field, value: some PredicateArgument) -> Predicate {
            field.build([value]) { try PredicateRules.comparison($0, .less, $1[0]) }
        }

        public static func <= (field: Field, value: some PredicateArgument) -> Predicate {
            field.build([value]) { try PredicateRules.comparison($0, .lessOrEqual, $1[0]) }
        }

        public static func > (field: Field, value: some PredicateArgument) -> Predicate {
            field.build([value]) { try PredicateRules.comparison($0, .greater, $1[0]) }
        }

        public static func >= (field: Field, value: some PredicateArgument) -> Predicate {
            field.build([value]) { try PredicateRules.comparison($0, .greaterOrEqual, $1[0]) }
        }

        /// `field BETWEEN {lower, upper}`, both ends inclusive.
        public func between(_ lower: some PredicateArgument, _ upper: some PredicateArgument) -> Predicate {
            build([lower, upper]) { try PredicateRules.between($0, $1[0], $1[1]) }
        }

        /// `field BEGINSWITH prefix`, case-sensitive as in CloudKit.
        public func beginsWith(_ prefix: String) -> Predicate {
            build([prefix]) { try PredicateRules.beginsWith($0, $1[0]) }
        }

        /// `field IN {values…}`.
        public func `in`(_ values: [any PredicateArgument]) -> Predicate {
            build(values) { try PredicateRules.in($0, .list($1)) }
        }

        /// `listField CONTAINS value`: the list field holds `value`.
        public func contains(_ value: some PredicateArgument) -> Predicate {
            build([value]) { try PredicateRules.listContains($0, $1[0]) }
        }

        /// `ANY listField IN {values…}`: the list field holds at least one of `values`
        /// (CloudKit Web Services' `LIST_CONTAINS_ANY`). No values match no record.
        ///
        /// ```swift
        /// let veggie = Predicate.field("tags").containsAny(["vegan", "vegetarian"])
        /// ```
        public func containsAny(_ values: [any PredicateArgument]) -> Predicate {
            build(values) { try PredicateRules.listContainsAny($0, .list($1)) }
        }

        /// `ALL {values…} IN listField`: the list field holds every one of `values`
        /// (CloudKit Web Services' `LIST_CONTAINS_ALL`). No values match every record.
        public func containsAll(_ values: [any PredicateArgument]) -> Predicate {
            build(values) { try PredicateRules.listContainsAll($0, .list($1)) }
        }

        /// `ANY listField BEGINSWITH prefix`: some string in the list field starts with `prefix`,
        /// case-sensitive (CloudKit Web Services' `LIST_MEMBER_BEGINS_WITH`).
        public func memberBeginsWith(_ prefix: String) -> Predicate {
            build([prefix]) { try PredicateRules.listMemberBeginsWith($0, $1[0]) }
        }

        /// The distance from `location` to this location field, to compare with kilometres.
        public func distance(from location: Location) -> Distance {
            Distance(field: self, location: location)
        }
    }

    /// `distanceToLocation:fromLocation:(field, location)`, compared with a number of kilometres.
    public struct Distance: Sendable {
        let field: Field
        let location: Location

        private func compare(_ op: ComparisonOperator, _ kilometres: Double) -> Predicate {
            Predicate(building: {
                try PredicateRules.distance(try field.key.get(), .location(location), op, .double(kilometres))
            })
        }

        public static func < (distance: Distance, kilometres: Double) -> Predicate { distance.compare(.less, kilometres) }
        public static func <= (distance: Distance, kilometres: Double) -> Predicate { distance.compare(.lessOrEqual, kilometres) }
        public static func > (distance: Distance, kilometres: Double) -> Predicate { distance.compare(.greater, kilometres) }
        public static func >= (distance: Distance, kilometres: Double) -> Predicate { distance.compare(.greaterOrEqual, kilometres) }
    }

    /// A field of the record; `creationDate`, `recordID` and the other system names map to the system keys.
    public static func field(_ name: String) -> Field {
        Field(name)
    }

    /// `self CONTAINS text`: every word of `text` appears in the record's string fields,
    /// ignoring case and diacritics.
    public static func textSearch(_ text: String) -> Predicate {
        Predicate(building: { try PredicateRules.textSearch(.string(text)) })
    }

    /// At least one word of `text` appears in the record's searchable string fields, ignoring
    /// case and diacritics (CloudKit Web Services' `CONTAINS_ANY_TOKENS`).
    ///
    /// ```swift
    /// let either = Predicate.textSearch(anyOf: "ramen udon")   // SELF CONTAINS "ramen" OR SELF CONTAINS "udon"
    /// ```
    public static func textSearch(anyOf text: String) -> Predicate {
        Predicate(building: { try PredicateRules.textSearch(anyWordOf: .string(text)) })
    }

    /// Search as you type (a LocalCloud extension, `self CONTAINS_AS_TYPED`): every word of
    /// `text` appears in the record's searchable string fields, ignoring case and diacritics, and
    /// the last word, unless a space or punctuation ends the text, may be the start of a word.
    /// Chinese, Japanese and Korean text matches by substring.
    ///
    /// ```swift
    /// Predicate.textSearch(asTyped: "caf")        // finds "Café Déjà Vu"
    /// Predicate.textSearch(asTyped: "cafe de")    // finds it too
    /// Predicate.textSearch(asTyped: "拉麵")        // finds "一蘭拉麵"
    /// ```
    /// A server answers it with the `LOCALCLOUD_CONTAINS_AS_TYPED` comparator, which CloudKit does not have.
    public static func textSearch(asTyped text: String) -> Predicate {
        Predicate(building: { try PredicateRules.textSearch(asTyped: .string(text)) })
    }

    /// All of `predicates` (CloudKit has no OR); an empty list matches everything.
    public static func and(_ predicates: [Predicate]) -> Predicate {
        Predicate(building: { PredicateRules.and(try predicates.map { try $0.validatedNode() }) })
    }

    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate {
        and([lhs, rhs])
    }

    /// `NOT p`, only around a single comparison, `IN`, `BEGINSWITH` or a list match
    /// (`contains`, `containsAny`, `containsAll`, `memberBeginsWith`).
    public static prefix func ! (operand: Predicate) -> Predicate {
        Predicate(building: { try PredicateRules.not(try operand.validatedNode()) })
    }
}
