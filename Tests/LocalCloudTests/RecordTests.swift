import Foundation
import Testing
@testable import LocalCloud

@Suite struct RecordTests {
    @Test func fieldsRoundTripThroughEveryValueType() throws {
        let record = Record(recordType: "Thing")
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let reference = Record.Reference(recordID: Record.ID(recordName: "target"), action: .deleteSelf)
        record["s"] = "text"
        record["i"] = Int64(42)
        record["n"] = 7
        record["d"] = 2.5
        record["b"] = true
        record["t"] = date
        record["bytes"] = Data([1, 2, 3])
        record["loc"] = Location(latitude: 22.3, longitude: 114.2, altitude: 10)
        record["ref"] = reference
        record["tags"] = ["a", "b"]
        record["nums"] = [Int64(1), 2]
        #expect(record["s"] as? String == "text")
        #expect(record["i"] as? Int64 == 42)
        #expect(record["n"] as? Int64 == 7)
        #expect(record["d"] as? Double == 2.5)
        #expect(record["b"] as? Bool == true)
        #expect(record["t"] as? Date == date)
        #expect(record["bytes"] as? Data == Data([1, 2, 3]))
        #expect(record["loc"] as? Location == Location(latitude: 22.3, longitude: 114.2, altitude: 10))
        #expect(record["ref"] as? Record.Reference == reference)
        #expect(record["tags"] as? [String] == ["a", "b"])
        #expect(record["nums"] as? [Int64] == [1, 2])

        let json = FieldsJSON.encode(record.fieldValues)
        let decoded = FieldsJSON.decode(json) { _ in nil }
        #expect(decoded == record.fieldValues)
    }

    @Test func keyValueSpellingsAndChangedKeys() {
        let record = Record(recordType: "Thing", recordID: Record.ID(recordName: "one"))
        #expect(record.recordID.recordName == "one")
        #expect(record.recordID.zoneID == .default)
        #expect(record.changedKeys().isEmpty)
        record.setObject("x", forKey: "a")
        record.setValue(Int64(3), forKey: "b")
        record["a"] = "y"
        #expect(record.value(forKey: "a") as? String == "y")
        #expect(record.object(forKey: "b") as? Int64 == 3)
        #expect(record.allKeys() == ["a", "b"])
        #expect(record.changedKeys() == ["a", "b"])
        record["a"] = nil
        #expect(record.allKeys() == ["b"])
        #expect(record.creationDate == nil && record.recordChangeTag == nil)
    }

    @Test func generatedRecordNamesAreUUIDs() {
        let a = Record(recordType: "Thing"), b = Record(recordType: "Thing")
        #expect(a.recordID != b.recordID)
        #expect(UUID(uuidString: a.recordID.recordName) != nil)
    }

    @Test func jsonEscapesControlCharactersAndQuotes() {
        let fields: [String: FieldValue] = ["s": .string("a\"b\\c\n\u{1}é😀")]
        let decoded = FieldsJSON.decode(FieldsJSON.encode(fields)) { _ in nil }
        #expect(decoded == fields)
    }
}

@Suite struct JSONTreeTests {
    @Test func parsesEscapesSurrogatesAndNumbers() {
        let parsed = JSONTree.parse(#"{"a":"x\"y\\z\n\u00e9\ud83d\ude00","n":-12,"d":1.5e3,"b":[true,false,null],"o":{}}"#)
        #expect(parsed?["a"] == .string("x\"y\\z\né😀"))
        #expect(parsed?["n"] == .int(-12))
        #expect(parsed?["d"] == .double(1500))
        #expect(parsed?["b"] == .array([.bool(true), .bool(false), .null]))
        #expect(parsed?["o"] == .object([]))
    }

    @Test func rejectsMalformedInput() {
        for text in ["", "{", "{\"a\":}", "[1,]", "\"open", "{\"a\":1} x", "tru", "\"\\ud800\"", "{\"a\" 1}"] {
            #expect(JSONTree.parse(text) == nil, "\(text)")
        }
    }

    @Test func decodingOnlyDesiredKeysSkipsTheOthersWhole() throws {
        // The skipped entries hold what a careless skip would miscount: brackets and quotes
        // inside strings, escapes, nested lists, and a key that needs escaping.
        let fields: [String: FieldValue] = [
            "a": .string("x] } \" { ["),
            "b": .list([.string(#"[\"]"#), .string("}")]),
            "c": .location(Location(latitude: 1.5, longitude: -2.25, altitude: 3)),
            "d": .reference(Record.Reference(recordID: Record.ID(recordName: "t", zoneID: RecordZone.ID(zoneName: "Z")), action: .deleteSelf)),
            "e": .int64(-7),
            "f\"g": .bool(true),
            "z": .string("last"),
        ]
        var json = FieldsJSON.encode(fields)
        for keys in [["c", "z"], ["d", "e"], ["z"], ["f\"g", "a"], ["missing"], []] {
            let decoded = json.withUTF8 { FieldsJSON.decode($0, keys: keys) { _ in nil } }
            #expect(decoded == fields.filter { keys.contains($0.key) }, "\(keys)")
        }
        #expect(json.withUTF8 { FieldsJSON.decode($0, keys: nil) { _ in nil } } == fields)
        // Malformed text never crashes and yields nothing.
        for broken in [#"{"a":{"t":"string","v":"x"}"#, #"{"a":"#, #"{"a":{"t":"string","v":"x"},}"#, #"{"q":[1,2"#] {
            var text = broken
            #expect(text.withUTF8 { FieldsJSON.decode($0, keys: ["a"]) { _ in nil } }.isEmpty, "\(broken)")
        }
    }

    @Test func corruptStoredFieldsDecodeToNothingInsteadOfCrashing() {
        #expect(FieldsJSON.decode("not json") { _ in nil }.isEmpty)
        #expect(FieldsJSON.decode(#"{"a":{"t":"int64","v":"x"},"b":{"t":"string","v":"ok"}}"#) { _ in nil } == ["b": .string("ok")])
    }
}
