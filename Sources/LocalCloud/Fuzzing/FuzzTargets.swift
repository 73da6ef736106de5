import Foundation

/// The parsers of hostile text, each run the way LocalCloud runs it, for the libFuzzer harnesses
/// in `Fuzz/` (a separate package, which cannot see `package` symbols). Not API: `@_spi(Fuzzing)`.
///
/// Each entry point returns normally for any input: a rejected input is an error LocalCloud
/// handles. A crash, a hang, a sanitizer report or a broken round trip (checked with
/// `precondition`, so the fuzzer reports it as a crash) is a finding.
@_spi(Fuzzing) public enum FuzzTargets {
    /// A `Predicate(format:)` string, with a few `%@`/`%K` arguments: parsed, compiled to SQL as a
    /// query would be, and its `predicateFormat` parsed again to the same tree (as documented).
    public static func predicate(_ bytes: [UInt8]) {
        let format = String(decoding: bytes, as: UTF8.self)
        let arguments: [Any] = ["Thai", 3, 2.5, "name", Location(latitude: 22.3, longitude: 114.2)]
        let predicate = Predicate(format: format, argumentArray: arguments)
        guard let node = try? predicate.validatedNode() else { return }
        _ = try? SQLQueryPlan.compile(node)
        let again = Predicate(format: predicate.predicateFormat, argumentArray: [])
        let reparsed = try? again.validatedNode()
        precondition(reparsed == node, "predicateFormat \(predicate.predicateFormat) does not parse to the same predicate")
    }

    /// A `.ckdb` schema text, as `localcloud schema import` reads it, then merged with itself.
    public static func schemaText(_ bytes: [UInt8]) {
        guard let schema = try? SchemaTextParser.parse(String(decoding: bytes, as: UTF8.self)) else { return }
        _ = try? schema.merging(schema)
    }

    /// A CloudKit Web Services JSON document, as the server and the remote store parse one:
    /// what parses must write back to bytes that parse to the same value.
    public static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONValue.parse(bytes) else { return }
        let again = try? JSONValue.parse(value.bytes)
        precondition(again.map { sameJSON($0, value) } == true, "JSON does not survive a round trip")
    }

    /// Equal documents, where an integral number may come back as an integer (the parser reads
    /// `1.5e18` as one): the same value on the wire.
    private static func sameJSON(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int(let i), .number(let d)), (.number(let d), .int(let i)): return Double(i) == d
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameJSON(value, $0) } ?? false }
        default: return a == b
        }
    }

    /// A stored `fields` column (the record store's JSON), whole and with only some keys, both
    /// readers agreeing on the keys they share.
    public static func storedFields(_ bytes: [UInt8]) {
        let assetURL: (String) -> URL? = { URL(fileURLWithPath: "/assets/\($0)") }
        let all = bytes.withUnsafeBufferPointer { FieldsJSON.decode($0, keys: nil, assetURL: assetURL) }
        let some = bytes.withUnsafeBufferPointer { FieldsJSON.decode($0, keys: ["name", "rating", "tags"], assetURL: assetURL) }
        _ = FieldsJSON.decode(String(decoding: bytes, as: UTF8.self), assetURL: assetURL)
        if !all.isEmpty {
            for (key, value) in some { precondition(all[key] == value, "the keyed reader disagrees on \(key)") }
        }
        // What decodes encodes and decodes to the same fields.
        let encoded = FieldsJSON.encode(all)
        let again = FieldsJSON.decode(encoded, assetURL: assetURL)
        precondition(again.keys.sorted() == all.keys.sorted(), "stored fields do not survive a round trip")
    }

    /// A query as decoded from a `records/query` body: its predicate compiled to SQL.
    public static func query(_ query: Query) {
        guard let node = try? query.predicate.validatedNode() else { return }
        _ = try? SQLQueryPlan.compile(node)
    }

    /// A query cursor as decoded from a continuation marker: its predicate compiled to SQL as the
    /// next page's query would be, and the cursor encoded and decoded to itself.
    public static func queryCursor(_ cursor: Query.Cursor) {
        _ = try? SQLQueryPlan.compile(cursor.predicate)
        guard let data = try? JSONEncoder().encode(cursor) else { return }
        let again = try? JSONDecoder().decode(Query.Cursor.self, from: data)
        precondition(again == cursor, "a query cursor does not survive a round trip")
    }

    /// A change token's bytes (`ServerChangeToken(data:)`), then checked as a store checks one.
    public static func changeToken(_ bytes: [UInt8]) {
        guard let token = try? ServerChangeToken(data: Data(bytes)) else { return }
        _ = try? token.check(epoch: "fuzz", floor: 10)
        _ = token.description
        let again = try? ServerChangeToken(data: token.data)
        precondition(again == token, "a change token does not survive a round trip")
    }

    /// A `text/event-stream` from a server, fed whole and then split at every third byte:
    /// the chunk boundaries must not change the events.
    public static func serverSentEvents(_ bytes: [UInt8]) {
        var whole = ServerSentEventParser()
        let events = whole.feed(bytes)
        var chunked = ServerSentEventParser()
        var split: [ServerSentEvent] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + 3, bytes.count)
            split += chunked.feed(bytes[start..<end])
            start = end
        }
        precondition(events == split, "chunk boundaries change the events")
    }
}
