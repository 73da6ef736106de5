import Foundation
import Testing
@testable import LocalCloud

/// The query page writes records straight to bytes; they must be the tree path's bytes exactly.
@Suite struct RecordWebServicesBytesTests {
    static let assets = AssetWireMapping(downloadURL: { "http://localhost/assets/\($0)" }, exists: { _ in true })

    static func written(_ record: Record) -> [UInt8] {
        var out = Array("[".utf8)
        record.writeWebServicesJSON(into: &out, assets: assets)
        return out
    }

    static func expectSameBytes(_ record: Record) {
        let tree = Array("[".utf8) + record.webServicesJSON(assets: assets).bytes
        #expect(String(decoding: written(record), as: UTF8.self) == String(decoding: tree, as: UTF8.self))
    }

    @Test func aNewRecordWithoutMetadata() {
        Self.expectSameBytes(Record(recordType: "Restaurant", recordID: .init(recordName: "r1")))
    }

    @Test func aSavedRecordWithEveryKindOfField() {
        let zone = RecordZone.ID(zoneName: "Lists", ownerName: "_alice")
        var state = Record.State()
        state.fields = [
            "name": .string("Caf\u{e9} \"Deadend\"\n\\ \u{1}\u{7f}"), "phone": .string(""), "rating": .int64(-42),
            "score": .double(4.5), "big": .double(1e300), "whole": .double(1500), "open": .bool(true),
            "visited": .date(Date(timeIntervalSince1970: 1_700_000_000.1234)), "blob": .bytes(Data([0, 1, 0xfb, 0xff])),
            "location": .location(Location(latitude: 22.28, longitude: 114.15)),
            "owner": .reference(Record.Reference(recordID: .init(recordName: "o", zoneID: zone), action: .deleteSelf)),
            "tags": .list([.string("a"), .string("b")]), "Zeta": .string("capital first"), "ñame": .string("non-ASCII key"),
        ]
        state.creationDate = Date(timeIntervalSince1970: 1_600_000_000.5)
        state.modificationDate = Date(timeIntervalSince1970: 1_600_000_001)
        state.creatorUserRecordID = Record.ID(recordName: "_alice")
        state.recordChangeTag = "7"
        Self.expectSameBytes(Record(recordType: "Restaurant", recordID: .init(recordName: "r \"2\"", zoneID: zone), state: state))
        // Without a creator or a last modifier, and in the default zone.
        state.creatorUserRecordID = nil
        state.lastModifiedUserRecordID = Record.ID(recordName: "_bob")
        Self.expectSameBytes(Record(recordType: "Restaurant", recordID: .init(recordName: "r3"), state: state))
    }

    @Test func recordsWithSharingKeysTakeTheTreePath() {
        var state = Record.State()
        state.fields = ["name": .string("child"), Record.parentKey: .reference(Record.Reference(recordID: .init(recordName: "p"), action: .none))]
        Self.expectSameBytes(Record(recordType: "ListEntry", recordID: .init(recordName: "c"), state: state))
    }

    @Test func objectsOfEverySizeAreWrittenWithSortedKeys() {
        // Literal expectations, so the writer's one- and two-member path is checked on its own.
        #expect(String(decoding: JSONValue.object([:]).bytes, as: UTF8.self) == "{}")
        #expect(String(decoding: JSONValue.object(["b": .int(1)]).bytes, as: UTF8.self) == #"{"b":1}"#)
        #expect(String(decoding: JSONValue.object(["value": .string("x"), "type": .string("STRING")]).bytes, as: UTF8.self)
            == #"{"type":"STRING","value":"x"}"#)
        #expect(String(decoding: JSONValue.object(["a": .null, "B": .bool(true)]).bytes, as: UTF8.self) == #"{"B":true,"a":null}"#)
        #expect(String(decoding: JSONValue.object(["c": .int(3), "a": .int(1), "b": .object(["z": .int(0), "y": .int(9)])]).bytes,
                       as: UTF8.self) == #"{"a":1,"b":{"y":9,"z":0},"c":3}"#)
    }
}
