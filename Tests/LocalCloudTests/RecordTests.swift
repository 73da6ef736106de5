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

    /// References are read without building a JSON array for their zone, owner and action (a
    /// shared-database page decodes one `parent` a row); every spelling still comes back as saved,
    /// and a stored extra that is not the usual three plain values goes the general way.
    @Test func referencesRoundTripWithEveryZoneOwnerAndAction() {
        let zones = [RecordZone.ID.default, RecordZone.ID(zoneName: "Lists"), RecordZone.ID(zoneName: "Li\"sts\n", ownerName: "_alice"),
                     RecordZone.ID(zoneName: "Zoné😀", ownerName: "_b\\ob")]
        for zone in zones {
            for action in [Record.Reference.Action.none, .deleteSelf] {
                let fields: [String: FieldValue] = [
                    "parent": .reference(Record.Reference(recordID: Record.ID(recordName: "friday", zoneID: zone), action: action)),
                    "refs": .list([.reference(Record.Reference(recordID: Record.ID(recordName: "a", zoneID: zone), action: action))]),
                ]
                var json = FieldsJSON.encode(fields)
                #expect(FieldsJSON.decode(json) { _ in nil } == fields, "\(zone) \(action)")
                #expect(json.withUTF8 { FieldsJSON.decode($0, keys: ["parent"]) { _ in nil } } == ["parent": fields["parent"]!])
            }
        }
        // An extra written by hand: short, with nulls, or with spaces still decodes.
        for (text, zone, owner) in [
            (#"{"p":{"t":"reference","v":"x","x":["Z"]}}"#, "Z", RecordZone.ID.currentUserName),
            (#"{"p":{"t":"reference","v":"x","x":[ "Z" , "_o" , 1 ]}}"#, "Z", "_o"),
            (#"{"p":{"t":"reference","v":"x","x":null}}"#, RecordZone.ID.defaultZoneName, RecordZone.ID.currentUserName),
        ] {
            guard case .reference(let reference)? = FieldsJSON.decode(text, assetURL: { _ in nil })["p"] else {
                Issue.record("\(text) did not decode to a reference")
                continue
            }
            #expect(reference.recordID.recordName == "x")
            #expect(reference.recordID.zoneID == RecordZone.ID(zoneName: zone, ownerName: owner), "\(text)")
        }
    }

    @Test func jsonEscapesControlCharactersAndQuotes() {
        let fields: [String: FieldValue] = ["s": .string("a\"b\\c\n\u{1}é😀")]
        let decoded = FieldsJSON.decode(FieldsJSON.encode(fields)) { _ in nil }
        #expect(decoded == fields)
    }
}

@Suite struct JSONParserTests {
    @Test func parsesEscapesSurrogatesAndNumbers() {
        let parsed = JSONValue.parse(text: #"{"a":"x\"y\\z\n\u00e9\ud83d\ude00","n":-12,"d":1.5e3,"b":[true,false,null],"o":{}}"#)
        #expect(parsed?["a"] == .string("x\"y\\z\né😀"))
        #expect(parsed?["n"] == .int(-12))
        #expect(parsed?["d"] == .number(1500))
        #expect(parsed?["b"] == .array([.bool(true), .bool(false), .null]))
        #expect(parsed?["o"] == .object([:]))
    }

    @Test func rejectsMalformedInput() {
        for text in ["", "{", "{\"a\":}", "[1,]", "\"open", "{\"a\":1} x", "tru", "\"\\ud800\"", "{\"a\" 1}",
                     "01", "-", "1.", ".5", "1e", "+1", "1e999", "NaN", "\"a\u{1}b\"", "[1 2]", "{\"a\":1,}"] {
            #expect(JSONValue.parse(text: text) == nil, "\(text)")
        }
    }

    @Test func integersKeepAll64BitsAndLargerOnesBecomeDoubles() {
        #expect(JSONValue.parse(text: "9223372036854775807") == .int(.max))
        #expect(JSONValue.parse(text: "-9223372036854775808") == .int(.min))
        #expect(JSONValue.parse(text: "9223372036854775808") == .number(9223372036854775808))
        #expect(JSONValue.parse(text: "-0") == .int(0))
        #expect(JSONValue.parse(text: "1.0") == .number(1))
    }

    @Test func nestingIsBoundedSoHostileInputCannotExhaustTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONValue.parse(text: deep) == nil)
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(JSONValue.parse(text: fine) != nil)
        #expect(throws: CloudError.self) { try JSONValue.parse(Array(deep.utf8)) }
    }

    @Test func writesWhatFoundationsDecoderAndTheWireExpect() throws {
        let value: JSONValue = .object([
            "b": .array([.int(-12), .number(1500), .number(0.5), .number(1e300), .null, .bool(true)]),
            "a": .string("q\"\\/\n\r\t\u{1}\u{7F}é😀"),
        ])
        let text = String(decoding: value.bytes, as: UTF8.self)
        #expect(text == #"{"a":"q\"\\/\n\r\t\u0001\u007fé😀","b":[-12,1500,0.5,1e+300,null,true]}"#)
        // Foundation's decoder and ours read what we write to the same value (1500 as an integer now).
        let again = try JSONValue.parse(value.bytes)
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(value.bytes)) == again)
        #expect(again.at("b", "1") == .int(1500) && again["a"] == value["a"])
    }

    @Test func agreesWithFoundationsDecoderOnAWebServicesPage() throws {
        let page = Array(#"""
            {"records":[{"recordName":"r1","recordType":"Restaurant","fields":{"name":{"value":"Caf\u00e9 \"Deadend\"","type":"STRING"},
            "location":{"value":{"latitude":22.28,"longitude":114.15},"type":"LOCATION"},"rating":{"value":4,"type":"INT64"}},
            "created":{"timestamp":1767225600000,"userRecordName":"_abc"},"deleted":false,"tags":[],"x":null}],
            "continuationMarker":"eyJ0IjoxfQ"}
            """#.utf8)
        #expect(try JSONValue.parse(page) == JSONDecoder().decode(JSONValue.self, from: Data(page)))
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
