import Foundation

// Serialized cursors carry the validated predicate, never its format text or SQL.

extension ComparisonOperator: Codable {}

extension PredicateKey: Codable {
    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch text {
        case "creationDate": self = .creationDate
        case "modificationDate": self = .modificationDate
        case "recordName": self = .recordName
        case "creatorUserRecordID": self = .creatorUserRecordID
        case "lastModifiedUserRecordID": self = .lastModifiedUserRecordID
        default:
            guard text.hasPrefix("field:") else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "Unknown key \(text)"))
            }
            self = .field(String(text.dropFirst(6)))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .field(let name): try container.encode("field:" + name)
        case .creationDate: try container.encode("creationDate")
        case .modificationDate: try container.encode("modificationDate")
        case .recordName: try container.encode("recordName")
        case .creatorUserRecordID: try container.encode("creatorUserRecordID")
        case .lastModifiedUserRecordID: try container.encode("lastModifiedUserRecordID")
        }
    }
}

extension FieldValue: Codable {
    private enum Keys: String, CodingKey { case t, v }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch try c.decode(String.self, forKey: .t) {
        case "string": self = .string(try c.decode(String.self, forKey: .v))
        case "int64": self = .int64(try c.decode(Int64.self, forKey: .v))
        case "double": self = .double(try c.decode(Double.self, forKey: .v))
        case "bool": self = .bool(try c.decode(Bool.self, forKey: .v))
        case "date": self = .date(Date(timeIntervalSince1970: try c.decode(Double.self, forKey: .v)))
        case "bytes": self = .bytes(try c.decode(Data.self, forKey: .v))
        case "location": self = .location(try c.decode(Location.self, forKey: .v))
        case "reference": self = .reference(try c.decode(Record.Reference.self, forKey: .v))
        case "asset":
            self = .asset(Asset(fileURL: nil, contentDigest: try c.decodeIfPresent(String.self, forKey: .v), size: nil))
        case "list": self = .list(try c.decode([FieldValue].self, forKey: .v))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .t, in: c, debugDescription: "Unknown value kind \(other)")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(kind, forKey: .t)
        switch self {
        case .string(let v): try c.encode(v, forKey: .v)
        case .int64(let v): try c.encode(v, forKey: .v)
        case .double(let v): try c.encode(v, forKey: .v)
        case .bool(let v): try c.encode(v, forKey: .v)
        case .date(let v): try c.encode(v.timeIntervalSince1970, forKey: .v)
        case .bytes(let v): try c.encode(v, forKey: .v)
        case .location(let v): try c.encode(v, forKey: .v)
        case .reference(let v): try c.encode(v, forKey: .v)
        case .asset(let v): try c.encodeIfPresent(v.contentDigest, forKey: .v)
        case .list(let v): try c.encode(v, forKey: .v)
        }
    }
}

extension PredicateNode: Codable {
    private enum Keys: String, CodingKey { case op, nodes, node, key, cmp, value, lower, upper, text, texts, values, location, km }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch try c.decode(String.self, forKey: .op) {
        case "true": self = .truePredicate
        case "false": self = .falsePredicate
        case "and": self = .and(try c.decode([PredicateNode].self, forKey: .nodes))
        case "not": self = .not(try c.decode(PredicateNode.self, forKey: .node))
        case "cmp":
            self = .comparison(try c.decode(PredicateKey.self, forKey: .key), try c.decode(ComparisonOperator.self, forKey: .cmp),
                               try c.decode(FieldValue.self, forKey: .value))
        case "between":
            self = .between(try c.decode(PredicateKey.self, forKey: .key), try c.decode(FieldValue.self, forKey: .lower),
                            try c.decode(FieldValue.self, forKey: .upper))
        case "beginsWith": self = .beginsWith(try c.decode(PredicateKey.self, forKey: .key), try c.decode(String.self, forKey: .text))
        case "in": self = .in(try c.decode(PredicateKey.self, forKey: .key), try c.decode([FieldValue].self, forKey: .values))
        case "listContains":
            self = .listContains(try c.decode(PredicateKey.self, forKey: .key), try c.decode(FieldValue.self, forKey: .value))
        case "listContainsAny":
            self = .listContainsAny(try c.decode(PredicateKey.self, forKey: .key), try c.decode([FieldValue].self, forKey: .values))
        case "listContainsAll":
            self = .listContainsAll(try c.decode(PredicateKey.self, forKey: .key), try c.decode([FieldValue].self, forKey: .values))
        case "listBeginsWith":
            self = .listMemberBeginsWith(try c.decode(PredicateKey.self, forKey: .key), try c.decode(String.self, forKey: .text))
        case "text": self = .textSearch(try c.decode(String.self, forKey: .text))
        case "textAny": self = .textSearchAny(try c.decode([String].self, forKey: .texts))
        case "textTyped": self = .textSearchAsTyped(try c.decode(String.self, forKey: .text))
        case "distance":
            self = .distance(try c.decode(PredicateKey.self, forKey: .key), try c.decode(Location.self, forKey: .location),
                             try c.decode(ComparisonOperator.self, forKey: .cmp), kilometres: try c.decode(Double.self, forKey: .km))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .op, in: c, debugDescription: "Unknown predicate \(other)")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .truePredicate: try c.encode("true", forKey: .op)
        case .falsePredicate: try c.encode("false", forKey: .op)
        case .and(let nodes):
            try c.encode("and", forKey: .op)
            try c.encode(nodes, forKey: .nodes)
        case .not(let node):
            try c.encode("not", forKey: .op)
            try c.encode(node, forKey: .node)
        case let .comparison(key, op, value):
            try c.encode("cmp", forKey: .op)
            try c.encode(key, forKey: .key)
            try c.encode(op, forKey: .cmp)
            try c.encode(value, forKey: .value)
        case let .between(key, lower, upper):
            try c.encode("between", forKey: .op)
            try c.encode(key, forKey: .key)
            try c.encode(lower, forKey: .lower)
            try c.encode(upper, forKey: .upper)
        case let .beginsWith(key, text):
            try c.encode("beginsWith", forKey: .op)
            try c.encode(key, forKey: .key)
            try c.encode(text, forKey: .text)
        case let .in(key, values):
            try c.encode("in", forKey: .op)
            try c.encode(key, forKey: .key)
            try c.encode(values, forKey: .values)
        case let .listContains(key, value):
            try c.encode("listContains", forKey: .op)
            try c.encode(key, forKey: .key)
            try c.encode(value, forKey: .value)
        case let .listContainsAny(key, values):
            try c.encode("listContainsAny", forKey: .op)
            try c.encode(key, forKey: .key)
            try c.encode(values, forKey: .values)
        case let .listContainsAll(key, values):
            try c.encode("listContainsAll", forKey: .op)
            try c.encode(key, forKey: .key)
            try c.encode(values, forKey: .values)
        case let .listMemberBeginsWith(key, text):
            try c.encode("listBeginsWith", forKey: .op)
            try c.encode(key, forKey: .key)
            try c.encode(text, forKey: .text)
        case .textSearch(let text):
            try c.encode("text", forKey: .op)
            try c.encode(text, forKey: .text)
        case .textSearchAny(let texts):
            try c.encode("textAny", forKey: .op)
            try c.encode(texts, forKey: .texts)
        case .textSearchAsTyped(let text):
            try c.encode("textTyped", forKey: .op)
            try c.encode(text, forKey: .text)
        case let .distance(key, location, op, km):
            try c.encode("distance", forKey: .op)
            try c.encode(key, forKey: .key)
            try c.encode(location, forKey: .location)
            try c.encode(op, forKey: .cmp)
            try c.encode(km, forKey: .km)
        }
    }
}
