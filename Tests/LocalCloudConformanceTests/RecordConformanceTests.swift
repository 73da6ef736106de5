import Foundation
import Testing
import LocalCloud

/// Saving, fetching and deleting records: the same on every store.
@Suite(.serialized) struct RecordConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func savedRecordComesBackWithSystemFields(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let saved = try await db.save(restaurant("Café Déjà Vu", recordName: "cafe-1"))
            #expect(saved.recordID.recordName == "cafe-1")
            #expect(saved.recordChangeTag?.isEmpty == false)
            #expect(saved.creationDate != nil)
            let fetched = try await db.record(for: Record.ID(recordName: "cafe-1"))
            #expect(fetched["name"] as? String == "Café Déjà Vu")
            #expect(fetched.recordChangeTag == saved.recordChangeTag)
            #expect(fetched.creatorUserRecordID?.recordName == "_alice")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func everyValueTypeRoundTrips(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let item = Record(recordType: "Item", recordID: Record.ID(recordName: "all-types"))
            let due = Date(timeIntervalSince1970: 1_760_000_000.123)
            item["title"] = "拉麵 一番 🍜"
            item["count"] = Int64(-42)
            item["price"] = 12.5
            item["due"] = due
            item["place"] = Location(latitude: 22.2819, longitude: 114.1582)
            item["tags"] = ["noodles", "late night"]
            item["blob"] = Data([0, 1, 2, 255])
            item["owner"] = Record.Reference(recordID: Record.ID(recordName: "someone"), action: .none)
            _ = try await db.save(item)
            let back = try await db.record(for: item.recordID)
            #expect(back["title"] as? String == "拉麵 一番 🍜")
            #expect(back["count"] as? Int64 == -42)
            #expect(back["price"] as? Double == 12.5)
            let backDue = try #require(back["due"] as? Date)
            #expect(abs(backDue.timeIntervalSince1970 - due.timeIntervalSince1970) < 0.001)
            #expect(back["place"] as? Location == Location(latitude: 22.2819, longitude: 114.1582))
            #expect(back["tags"] as? [String] == ["noodles", "late night"])
            #expect(back["blob"] as? Data == Data([0, 1, 2, 255]))
            #expect((back["owner"] as? Record.Reference)?.recordID.recordName == "someone")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func missingRecordIsUnknownItem(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let error = await cloudError { _ = try await db.record(for: Record.ID(recordName: "nope")) }
            #expect(error?.code == .unknownItem)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func desiredKeysLimitTheFields(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let record = restaurant("Kitchen", recordName: "k")
            record["phone"] = "555-0100"
            _ = try await db.save(record)
            let results = try await db.records(for: [record.recordID], desiredKeys: ["name"])
            let fetched = try #require(try results[record.recordID]?.get())
            #expect(fetched["name"] as? String == "Kitchen")
            #expect(fetched["phone"] == nil)
            #expect(fetched["type"] == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteRemovesTheRecord(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let saved = try await db.save(restaurant("Gone Soon"))
            _ = try await db.deleteRecord(withID: saved.recordID)
            let error = await cloudError { _ = try await db.record(for: saved.recordID) }
            #expect(error?.code == .unknownItem)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func assetBytesRoundTrip(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("asset-\(UUID().uuidString).bin")
            try bytes.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let record = restaurant("With Photo")
            record["image"] = Asset(fileURL: file)
            _ = try await db.save(record)
            let fetched = try await db.record(for: record.recordID)
            let url = try #require((fetched["image"] as? Asset)?.fileURL)
            #expect(try Data(contentsOf: url) == bytes)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func privateRecordsAreTheirOwnersOnly(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.container(user: "alice").privateCloudDatabase
            let bob = try await store.container(user: "bob").privateCloudDatabase
            let saved = try await alice.save(restaurant("Secret Spot", recordName: "secret"))
            #expect(try await alice.record(for: saved.recordID)["name"] as? String == "Secret Spot")
            let error = await cloudError { _ = try await bob.record(for: saved.recordID) }
            #expect(error?.code == .unknownItem)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func noAccountCannotWrite(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let anonymous = try await store.container(user: nil).publicCloudDatabase
            let error = await cloudError { _ = try await anonymous.save(restaurant("Anonymous")) }
            #expect(error?.code == .notAuthenticated)
        }
    }
}
