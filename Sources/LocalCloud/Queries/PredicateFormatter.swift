import Foundation

/// Writes a ``PredicateNode`` back as a format string that ``PredicateParser`` reads as the same node.
///
/// Values without a literal syntax in NSPredicate use `CAST`: dates as `CAST(seconds, "NSDate")`
/// (seconds since 2001, as NSPredicate prints them), data as `CAST("base64", "NSData")`,
/// locations as `CAST("lat,lon", "CLLocation")` and references as `CAST("json", "CKReference")`.
///
/// List matches use NSPredicate's aggregate forms: `ANY tags IN {…}` (any of the values),
/// `ALL {…} IN tags` (every one of the values: each is `IN` the list) and `ANY tags BEGINSWITH "p"`.
/// An any-word text search is an OR of single-word `SELF CONTAINS` searches.
enum PredicateFormatter {
    static func format(_ node: PredicateNode) -> String {
        switch node {
        case .truePredicate: "TRUEPREDICATE"
        case .falsePredicate: "FALSEPREDICATE"
        case .and(let nodes): nodes.map(formatOperand).joined(separator: " AND ")
        case .not(let inner): "NOT (\(format(inner)))"
        case let .comparison(key, op, value): "\(format(key)) \(op.rawValue) \(format(value))"
        case let .between(key, lower, upper): "\(format(key)) BETWEEN {\(format(lower)), \(format(upper))}"
        case let .beginsWith(key, prefix): "\(format(key)) BEGINSWITH \(quote(prefix))"
        case let .in(key, values): "\(format(key)) IN \(format(.list(values)))"
        case let .listContains(key, value): "\(format(key)) CONTAINS \(format(value))"
        case let .listContainsAny(key, values): "ANY \(format(key)) IN \(format(.list(values)))"
        case let .listContainsAll(key, values): "ALL \(format(.list(values))) IN \(format(key))"
        case let .listMemberBeginsWith(key, prefix): "ANY \(format(key)) BEGINSWITH \(quote(prefix))"
        case .textSearch(let text): "SELF CONTAINS \(quote(text))"
        case .textSearchAny(let texts): texts.map { "SELF CONTAINS \(quote($0))" }.joined(separator: " OR ")
        case .textSearchAsTyped(let text): "SELF CONTAINS_AS_TYPED \(quote(text))"
        case let .distance(key, location, op, kilometres):
            "distanceToLocation:fromLocation:(\(format(key)), \(format(.location(location)))) \(op.rawValue) \(kilometres.description)"
        }
    }

    /// An operand of AND; an OR of text searches, and nested ANDs (which normalized trees never
    /// have), keep their grouping.
    private static func formatOperand(_ node: PredicateNode) -> String {
        switch node {
        case .and, .textSearchAny: "(\(format(node)))"
        default: format(node)
        }
    }

    static func format(_ key: PredicateKey) -> String {
        let name = PredicateRules.name(of: key)
        if case .field = key, PredicateParser.isReserved(name) { return "#" + name }
        return name
    }

    static func format(_ value: FieldValue) -> String {
        switch value {
        case .string(let string): quote(string)
        case .int64(let int): String(int)
        case .double(let double): double.description
        case .bool(let bool): bool ? "TRUE" : "FALSE"
        case .date(let date): "CAST(\(date.timeIntervalSinceReferenceDate.description), \"NSDate\")"
        case .bytes(let data): "CAST(\(quote(data.base64EncodedString())), \"NSData\")"
        case .location(let l):
            "CAST(\(quote(([l.latitude, l.longitude] + (l.altitude.map { [$0] } ?? [])).map(\.description).joined(separator: ","))), \"CLLocation\")"
        case .reference(let reference): "CAST(\(quote(referenceJSON(reference))), \"CKReference\")"
        case .asset: "CAST(\"\", \"CKAsset\")"
        case .list(let items): "{" + items.map(format).joined(separator: ", ") + "}"
        }
    }

    private static func referenceJSON(_ reference: Record.Reference) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(reference) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A double-quoted string literal; control characters are escaped so the format stays one printable line.
    static func quote(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + String(format: "%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
