import Foundation

/// The rules CloudKit puts on predicates, shared by the format parser and the typed builder,
/// so both produce exactly the same normalized ``PredicateNode``s.
///
/// Normalized forms the query compiler can rely on:
/// - keys are on the left; `5 < rating` becomes `rating > 5`;
/// - `.and` is flat and has at least two operands;
/// - `NOT (a == b)` becomes `a != b` (and `!=` becomes `==`); `NOT NOT p` becomes `p`;
///   other `NOT`s wrap a single comparison, `IN`, `BEGINSWITH` or a list match;
/// - list matches of one value are `.listContains`; of none, `true` (ALL) or `false` (ANY);
/// - `.textSearchAny` has two or more single-word texts;
/// - `recordName`, `creatorUserRecordID` and `lastModifiedUserRecordID` values are `.string` record names;
/// - `creationDate` and `modificationDate` values are `.date`;
/// - a `Record.ID` compared with a user field is a `.reference` with action `.none`;
/// - `.in` lists and `.between` bounds are scalars (never `.list`, `.asset` or `.location`).
package enum PredicateRules {
    static func error(_ message: String) -> CloudError {
        CloudError(.invalidArguments, message)
    }

    /// The distance predicate's field and SQL comparison, as every SQL store compiles it.
    ///
    /// - Throws: `invalidArguments` for a key that is not a field, or `==`/`!=` (a distance is
    ///   compared with <, <=, > or >=).
    package static func distanceComparison(_ key: PredicateKey, _ op: ComparisonOperator) throws -> (field: String, sqlOperator: String) {
        guard case .field(let name) = key else {
            throw error("distanceToLocation needs a location field")
        }
        try FieldName.validate(name)
        let sqlOperator = switch op {
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .equal, .notEqual:
            throw error("distanceToLocation compares with <, <=, > or >=")
        }
        return (name, sqlOperator)
    }

    // MARK: Keys

    /// Maps a key name to a ``PredicateKey``, recognising CloudKit's system keys.
    static func key(named name: String) throws -> PredicateKey {
        switch name {
        case "creationDate": return .creationDate
        case "modificationDate": return .modificationDate
        case "recordID", "recordName": return .recordName
        case "creatorUserRecordID": return .creatorUserRecordID
        case "lastModifiedUserRecordID": return .lastModifiedUserRecordID
        default: break
        }
        if name.contains(".") {
            throw error("key paths are not supported: '\(clip(name))'")
        }
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII,
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }),
              name.count <= 255
        else {
            throw error("invalid key '\(clip(name))': keys start with a letter and hold only letters, digits and underscores")
        }
        return .field(name)
    }

    static func name(of key: PredicateKey) -> String {
        switch key {
        case .field(let name): name
        case .creationDate: "creationDate"
        case .modificationDate: "modificationDate"
        case .recordName: "recordID"
        case .creatorUserRecordID: "creatorUserRecordID"
        case .lastModifiedUserRecordID: "lastModifiedUserRecordID"
        }
    }

    private static func isRecordIDKey(_ key: PredicateKey) -> Bool {
        switch key {
        case .recordName, .creatorUserRecordID, .lastModifiedUserRecordID: true
        default: false
        }
    }

    private static func isDateKey(_ key: PredicateKey) -> Bool {
        key == .creationDate || key == .modificationDate
    }

    // MARK: Arguments

    /// Converts a caller's `%@` argument to a ``FieldValue``.
    ///
    /// Accepts String, the integer types, Double, Float, Bool, Date, Data, ``Location``,
    /// `Record.ID` (as a reference), `Record.Reference`, and arrays of these.
    static func value(fromArgument argument: Any, position: Int) throws -> FieldValue {
        try value(from: argument, label: "argument \(position)")
    }

    /// Converts a value to a ``FieldValue``; `label` names it in errors ("argument 2", "value").
    static func value(from argument: Any, label: String) throws -> FieldValue {
        guard let unwrapped = unwrapOptional(argument), !(unwrapped is NSNull) else {
            throw error("\(label) is nil; CloudKit predicates cannot compare with nil")
        }
        if let array = unwrapped as? [Any] {
            return .list(try array.map { element in
                let value = try value(from: element, label: label)
                if case .list = value { throw error("\(label) is a nested array, which predicates cannot use") }
                return value
            })
        }
        if let value = scalar(unwrapped) {
            switch value {
            case .double(let d) where !d.isFinite:
                throw error("\(label) is not a finite number (\(d))")
            case .location(let l) where !l.isFinite:
                throw error("\(label) is a location with a non-finite coordinate")
            default:
                return value
            }
        }
        if unwrapped is Asset {
            throw error("\(label) is an Asset; assets cannot be queried")
        }
        throw error("\(label) has unsupported type \(type(of: unwrapped))")
    }

    private static func scalar(_ v: Any) -> FieldValue? {
        switch v {
        case let s as String: return .string(s)
        case let s as Substring: return .string(String(s))
        case let b as Bool: return .bool(b)
        case let i as Int: return .int64(Int64(i))
        case let i as Int64: return .int64(i)
        case let i as Int32: return .int64(Int64(i))
        case let i as Int16: return .int64(Int64(i))
        case let i as Int8: return .int64(Int64(i))
        case let i as UInt32: return .int64(Int64(i))
        case let i as UInt16: return .int64(Int64(i))
        case let i as UInt8: return .int64(Int64(i))
        case let i as UInt: return Int64(exactly: i).map(FieldValue.int64)
        case let i as UInt64: return Int64(exactly: i).map(FieldValue.int64)
        case let d as Double: return .double(d)
        case let f as Float: return .double(Double(f))
        case let d as Date: return .date(d)
        case let d as Data: return .bytes(d)
        case let l as Location: return .location(l)
        case let id as Record.ID: return .reference(Record.Reference(recordID: id, action: .none))
        case let r as Record.Reference: return .reference(r)
        case let n as NSNumber: return .double(n.doubleValue)
        default: return nil
        }
    }

    private static func unwrapOptional(_ v: Any) -> Any? {
        let mirror = Mirror(reflecting: v)
        guard mirror.displayStyle == .optional else { return v }
        guard let child = mirror.children.first else { return nil }
        return unwrapOptional(child.value)
    }

    // MARK: Values for keys

    /// Checks `value` suits `key` and converts it to the normalized form (record names for ID keys).
    private static func scalarValue(_ value: FieldValue, for key: PredicateKey, in context: String) throws -> FieldValue {
        let keyName = name(of: key)
        switch value {
        case .list:
            throw error("\(context) on \(keyName) needs a single value, not a list")
        case .asset:
            throw error("assets cannot be queried (\(keyName))")
        default: break
        }
        if isRecordIDKey(key) {
            switch value {
            case .string(let name): return .string(name)
            case .reference(let reference): return .string(reference.recordID.recordName)
            default: throw error("\(keyName) must be compared with a Record.ID, a Record.Reference or a record name, not \(describeType(value))")
            }
        }
        if isDateKey(key) {
            guard case .date = value else {
                throw error("\(keyName) must be compared with a Date, not \(describeType(value))")
            }
        }
        return value
    }

    static func describeType(_ value: FieldValue) -> String {
        switch value {
        case .string: "a string"
        case .int64: "an integer"
        case .double: "a number"
        case .bool: "a boolean"
        case .date: "a date"
        case .bytes: "data"
        case .location: "a location"
        case .reference: "a reference"
        case .asset: "an asset"
        case .list: "a list"
        }
    }

    // MARK: Nodes

    static func comparison(_ key: PredicateKey, _ op: ComparisonOperator, _ value: FieldValue) throws -> PredicateNode {
        let value = try scalarValue(value, for: key, in: op.rawValue)
        let keyName = name(of: key)
        let ordering = op != .equal && op != .notEqual
        if isRecordIDKey(key), ordering {
            throw error("\(keyName) supports only ==, != and IN, not \(op.rawValue)")
        }
        switch value {
        case .location:
            throw error("location field \(keyName) can only be queried with distanceToLocation:fromLocation:")
        case .reference, .bool, .bytes:
            if ordering {
                throw error("operator \(op.rawValue) cannot compare \(keyName) with \(describeType(value)); use == or !=")
            }
        default: break
        }
        return .comparison(key, op, value)
    }

    static func between(_ key: PredicateKey, _ lower: FieldValue, _ upper: FieldValue) throws -> PredicateNode {
        let keyName = name(of: key)
        if isRecordIDKey(key) { throw error("BETWEEN is not supported on \(keyName)") }
        let lower = try scalarValue(lower, for: key, in: "BETWEEN")
        let upper = try scalarValue(upper, for: key, in: "BETWEEN")
        for bound in [lower, upper] {
            switch bound {
            case .string, .int64, .double, .date: break
            default: throw error("BETWEEN on \(keyName) needs strings, numbers or dates, not \(describeType(bound))")
            }
        }
        return .between(key, lower, upper)
    }

    static func beginsWith(_ key: PredicateKey, _ value: FieldValue) throws -> PredicateNode {
        guard case .field = key else {
            throw error("BEGINSWITH is not supported on \(name(of: key))")
        }
        guard case .string(let prefix) = value else {
            throw error("BEGINSWITH on \(name(of: key)) needs a string, not \(describeType(value))")
        }
        return .beginsWith(key, prefix)
    }

    static func `in`(_ key: PredicateKey, _ list: FieldValue) throws -> PredicateNode {
        guard case .list(let items) = list else {
            throw error("IN on \(name(of: key)) needs a list such as {1, 2} or an array argument, not \(describeType(list))")
        }
        let values = try items.map { item in
            let value = try scalarValue(item, for: key, in: "IN")
            if case .location = value {
                throw error("location field \(name(of: key)) can only be queried with distanceToLocation:fromLocation:")
            }
            return value
        }
        return .in(key, values)
    }

    static func listContains(_ key: PredicateKey, _ value: FieldValue) throws -> PredicateNode {
        guard case .field = key else {
            throw error("CONTAINS is not supported on \(name(of: key)); use CONTAINS on a list field or 'self CONTAINS'")
        }
        switch value {
        case .list: throw error("CONTAINS on \(name(of: key)) needs a single value, not a list")
        case .asset: throw error("assets cannot be queried (\(name(of: key)))")
        case .location: throw error("CONTAINS on \(name(of: key)) cannot match a location")
        default: return .listContains(key, value)
        }
    }

    /// The values of a list match (`ANY listField IN {…}`, `ALL {…} IN listField`), each checked like `CONTAINS`.
    private static func listMatchValues(_ key: PredicateKey, _ list: FieldValue, _ form: String) throws -> [FieldValue] {
        guard case .field = key else {
            throw error("\(form) is not supported on \(name(of: key)); it needs a list field")
        }
        guard case .list(let items) = list else {
            throw error("\(form) on \(name(of: key)) needs a list such as {'a', 'b'} or an array argument, not \(describeType(list))")
        }
        for item in items {
            switch item {
            case .list: throw error("\(form) on \(name(of: key)) cannot hold a nested list")
            case .asset: throw error("assets cannot be queried (\(name(of: key)))")
            case .location: throw error("\(form) on \(name(of: key)) cannot match a location")
            default: continue
            }
        }
        return items
    }

    /// `ANY listField IN {values}`: one value is plain `CONTAINS`, none matches nothing.
    static func listContainsAny(_ key: PredicateKey, _ list: FieldValue) throws -> PredicateNode {
        let values = try listMatchValues(key, list, "ANY … IN")
        switch values.count {
        case 0: return .falsePredicate
        case 1: return try listContains(key, values[0])
        default: return .listContainsAny(key, values)
        }
    }

    /// `ALL {values} IN listField`: one value is plain `CONTAINS`, none matches everything.
    static func listContainsAll(_ key: PredicateKey, _ list: FieldValue) throws -> PredicateNode {
        let values = try listMatchValues(key, list, "ALL … IN")
        switch values.count {
        case 0: return .truePredicate
        case 1: return try listContains(key, values[0])
        default: return .listContainsAll(key, values)
        }
    }

    /// `ANY listField BEGINSWITH prefix`: some string of the list starts with `prefix` (case-sensitive).
    static func listMemberBeginsWith(_ key: PredicateKey, _ value: FieldValue) throws -> PredicateNode {
        guard case .field = key else {
            throw error("ANY … BEGINSWITH is not supported on \(name(of: key)); it needs a list field")
        }
        guard case .string(let prefix) = value else {
            throw error("ANY \(name(of: key)) BEGINSWITH needs a string, not \(describeType(value))")
        }
        return .listMemberBeginsWith(key, prefix)
    }

    /// The words of a text search as the full-text index splits them: runs of letters and digits.
    package static func words(in text: String) -> [Substring] {
        text.split { !($0.isLetter || $0.isNumber) }
    }

    /// `self CONTAINS` any one of `texts`, each a single word as written; one text is a plain search.
    static func textSearchAny(_ texts: [String]) throws -> PredicateNode {
        for text in texts where words(in: text).count != 1 {
            throw error("OR is supported only between single-word 'self CONTAINS' searches, not '\(clip(text, limit: 40))'")
        }
        switch texts.count {
        case 0: throw error("self CONTAINS needs at least one word to search for")
        case 1: return .textSearch(texts[0])
        default: return .textSearchAny(texts)
        }
    }

    /// `self CONTAINS` any word of `text` (CloudKit's CONTAINS_ANY_TOKENS).
    static func textSearch(anyWordOf value: FieldValue) throws -> PredicateNode {
        guard case .string(let text) = value else {
            throw error("self CONTAINS needs a string, not \(describeType(value))")
        }
        return try textSearchAny(words(in: text).map(String.init))
    }

    static func textSearch(_ value: FieldValue) throws -> PredicateNode {
        guard case .string(let text) = value else {
            throw error("self CONTAINS needs a string, not \(describeType(value))")
        }
        guard text.contains(where: { $0.isLetter || $0.isNumber }) else {
            throw error("self CONTAINS needs at least one word to search for")
        }
        return .textSearch(text)
    }

    /// `self CONTAINS_AS_TYPED text`: search as you type (``TypedSearchTerms``).
    static func textSearch(asTyped value: FieldValue) throws -> PredicateNode {
        guard case .string(let text) = value else {
            throw error("self CONTAINS_AS_TYPED needs a string, not \(describeType(value))")
        }
        guard !TypedSearchTerms(text).isEmpty else {
            throw error("self CONTAINS_AS_TYPED needs at least one word to search for")
        }
        return .textSearchAsTyped(text)
    }

    static func distance(_ key: PredicateKey, _ location: FieldValue, _ op: ComparisonOperator, _ kilometres: FieldValue) throws -> PredicateNode {
        guard case .field = key else {
            throw error("distanceToLocation:fromLocation: needs a location field, not \(name(of: key))")
        }
        guard case .location(let origin) = location else {
            throw error("distanceToLocation:fromLocation: needs a Location, not \(describeType(location))")
        }
        guard op != .equal, op != .notEqual else {
            throw error("distanceToLocation:fromLocation: supports <, <=, > and >=, not \(op.rawValue)")
        }
        let km: Double
        switch kilometres {
        case .int64(let i): km = Double(i)
        case .double(let d) where d.isFinite: km = d
        default: throw error("distanceToLocation:fromLocation: must be compared with a number of kilometres, not \(describeType(kilometres))")
        }
        return .distance(key, origin, op, kilometres: km)
    }

    /// `NOT p`: only around a single comparison, `IN`, `BEGINSWITH` or a list match (`CONTAINS`,
    /// `ANY … IN`, `ALL … IN`, `ANY … BEGINSWITH`), as CloudKit allows.
    static func not(_ node: PredicateNode) throws -> PredicateNode {
        switch node {
        case .comparison(let key, .equal, let value): return .comparison(key, .notEqual, value)
        case .comparison(let key, .notEqual, let value): return .comparison(key, .equal, value)
        case .comparison, .in, .beginsWith, .listContains, .listContainsAny, .listContainsAll, .listMemberBeginsWith:
            return .not(node)
        case .not(let inner): return inner
        case .truePredicate: return .falsePredicate
        case .falsePredicate: return .truePredicate
        case .and: throw error("NOT cannot negate an AND compound predicate")
        case .between: throw error("NOT cannot negate BETWEEN")
        case .textSearch, .textSearchAny, .textSearchAsTyped: throw error("NOT cannot negate a 'self CONTAINS' text search")
        case .distance: throw error("NOT cannot negate distanceToLocation:fromLocation:")
        }
    }

    /// `a AND b AND …`, flattened.
    static func and(_ nodes: [PredicateNode]) -> PredicateNode {
        var flat: [PredicateNode] = []
        for node in nodes {
            if case .and(let inner) = node { flat.append(contentsOf: inner) } else { flat.append(node) }
        }
        switch flat.count {
        case 0: return .truePredicate
        case 1: return flat[0]
        default: return .and(flat)
        }
    }

    /// Shortens user text echoed in messages and makes control characters visible.
    static func clip(_ text: String, limit: Int = 120) -> String {
        let shown = text.count > limit ? String(text.prefix(limit)) + "…" : text
        return shown.unicodeScalars.map { PredicateLexer.visible($0) }.joined()
    }
}

extension Location {
    /// Whether every coordinate is a finite number (NaN never equals itself, so it cannot be queried).
    var isFinite: Bool {
        latitude.isFinite && longitude.isFinite && (altitude?.isFinite ?? true)
    }
}
