import Foundation
import Testing
import LocalCloud

/// CloudKit's sharing: shares, participants, the shared database and its refusals, on every store.
@Suite(.serialized) struct SharingConformanceTests {
    /// Every store: embedded, remote (a real server) and PostgreSQL.
    static let kinds: [StoreKind] = StoreKind.allCases

    /// alice's "Friday" list (a root with two entries below it) in her zone "Lists", and an
    /// unrelated record beside it.
    struct Fixture {
        let alice: Container
        let zone: RecordZone.ID
        let list: Record
        let entries: [Record]
        let unrelated: Record

        init(_ store: any StoreFixture) async throws {
            alice = try await store.container(user: "alice")
            let db = alice.privateCloudDatabase
            zone = try await db.save(RecordZone(zoneName: "Lists")).zoneID
            list = Record(recordType: "List", recordID: Record.ID(recordName: "friday", zoneID: zone))
            list["name"] = "Friday"
            var entries: [Record] = []
            for name in ["Cafe Deadend", "Homei"] {
                let entry = Record(recordType: "Restaurant", recordID: Record.ID(recordName: name.lowercased().replacingOccurrences(of: " ", with: "-"), zoneID: zone))
                entry["name"] = name
                entry.setParent(list)
                entries.append(entry)
            }
            unrelated = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "private-note", zoneID: zone))
            unrelated["name"] = "Not shared"
            let (saved, _) = try await db.modifyRecords(saving: [list] + entries + [unrelated], deleting: [])
            for result in saved.values { _ = try result.get() }
            self.entries = entries
        }

        /// Shares the list with `users` (by user record ID) at `permission`; returns the saved share.
        func share(with users: [String], permission: Share.ParticipantPermission) async throws -> Share {
            let root = try await alice.privateCloudDatabase.record(for: list.recordID)
            let share = Share(rootRecord: root)
            share[Share.SystemFieldKey.title] = "Friday"
            for user in users {
                var participant = try await alice.shareParticipant(forUserRecordID: Record.ID(recordName: "_" + user))
                participant.permission = permission
                share.addParticipant(participant)
            }
            let (saved, _) = try await alice.privateCloudDatabase.modifyRecords(saving: [root, share], deleting: [])
            return try #require(try saved[share.recordID]?.get() as? Share)
        }
    }

    /// The owner's zone as a participant names it.
    static func sharedZone(_ fixture: Fixture) -> RecordZone.ID {
        RecordZone.ID(zoneName: fixture.zone.zoneName, ownerName: "_alice")
    }

    @Test(arguments: kinds)
    func aParticipantAcceptsAndReadsAndWritesTheHierarchy(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let share = try await fixture.share(with: ["bob"], permission: .readWrite)
            let url = try #require(share.url)
            #expect(share.participants.count == 2)
            #expect(share.owner.role == .owner && share.owner.userIdentity.userRecordID?.recordName == "_alice")
            #expect(share.participants.first { $0.role == .privateUser }?.acceptanceStatus == .pending)
            let root = try await fixture.alice.privateCloudDatabase.record(for: fixture.list.recordID)
            #expect(root.share?.recordID == share.recordID, "the save sets the root's share")

            let bob = try await store.container(user: "bob")
            let metadata = try await bob.shareMetadata(for: url, shouldFetchRootRecord: true, rootRecordDesiredKeys: ["name"])
            #expect(metadata.participantRole == .privateUser)
            #expect(metadata.participantStatus == .pending)
            #expect(metadata.participantPermission == .readWrite)
            #expect(metadata.ownerIdentity.userRecordID?.recordName == "_alice")
            #expect(metadata.hierarchicalRootRecordID?.recordName == "friday")
            #expect(metadata.rootRecord?["name"] as? String == "Friday")
            #expect(metadata.share[Share.SystemFieldKey.title] as? String == "Friday")

            // Before accepting, the shared database shows nothing.
            #expect(try await bob.sharedCloudDatabase.allRecordZones().isEmpty)
            let accepted = try await bob.accept(metadata)
            #expect(accepted.currentUserParticipant?.acceptanceStatus == .accepted)

            let shared = bob.sharedCloudDatabase
            let zones = try await shared.allRecordZones().map(\.zoneID)
            #expect(zones == [Self.sharedZone(fixture)])
            let changes = try await shared.databaseChanges(since: nil)
            #expect(changes.modifications.map(\.zoneID) == [Self.sharedZone(fixture)])

            // Reads: the root and the entries under it; not the unrelated record beside them.
            let zoneID = Self.sharedZone(fixture)
            let fetchedRoot = try await shared.record(for: Record.ID(recordName: "friday", zoneID: zoneID))
            #expect(fetchedRoot["name"] as? String == "Friday")
            #expect(fetchedRoot.recordID.zoneID.ownerName == "_alice")
            let page = try await shared.records(matching: Query(recordType: "Restaurant", predicate: Predicate(value: true)), inZoneWith: zoneID)
            let names = Set(try page.matchResults.map { try $0.1.get()["name"] as? String ?? "" })
            #expect(names == ["Cafe Deadend", "Homei"])
            let hidden = await cloudError { _ = try await shared.record(for: Record.ID(recordName: "private-note", zoneID: zoneID)) }
            #expect(hidden?.code == .unknownItem)

            // Writes: a new entry under the list, seen by alice in her private database.
            let added = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "bobs-pick", zoneID: zoneID))
            added["name"] = "Bob's pick"
            added.setParent(fetchedRoot)
            let saved = try await shared.save(added)
            #expect(saved.creatorUserRecordID?.recordName == "_bob")
            let seen = try await fixture.alice.privateCloudDatabase.record(for: Record.ID(recordName: "bobs-pick", zoneID: fixture.zone))
            #expect(seen["name"] as? String == "Bob's pick")

            // A record outside the hierarchy cannot be created.
            let stray = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "stray", zoneID: zoneID))
            stray["name"] = "Stray"
            let refused = await cloudError { _ = try await shared.save(stray) }
            #expect(refused?.code == .permissionFailure)

            // alice's own edits reach bob's zone changes.
            let zoneChanges = try await shared.recordZoneChanges(inZoneWith: zoneID, since: nil)
            #expect(Set(zoneChanges.modificationResultsByID.keys.map(\.recordName)).isSuperset(of: ["friday", "cafe-deadend", "homei", "bobs-pick"]))
            #expect(!zoneChanges.modificationResultsByID.keys.contains { $0.recordName == "private-note" })
        }
    }

    @Test(arguments: kinds)
    func aReadOnlyParticipantCannotWrite(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let share = try await fixture.share(with: ["carol"], permission: .readOnly)
            let carol = try await store.container(user: "carol")
            try await carol.accept(try await carol.shareMetadata(for: try #require(share.url)))
            let zoneID = Self.sharedZone(fixture)
            let entry = try await carol.sharedCloudDatabase.record(for: Record.ID(recordName: "homei", zoneID: zoneID))
            entry["name"] = "Changed by carol"
            let error = await cloudError { _ = try await carol.sharedCloudDatabase.save(entry) }
            #expect(error?.code == .permissionFailure)
            #expect(error?.message.contains("read-only") == true)
            let deleteError = await cloudError { _ = try await carol.sharedCloudDatabase.deleteRecord(withID: entry.recordID) }
            #expect(deleteError?.code == .permissionFailure)
            let kept = try await fixture.alice.privateCloudDatabase.record(for: Record.ID(recordName: "homei", zoneID: fixture.zone))
            #expect(kept["name"] as? String == "Homei", "nothing written")
        }
    }

    @Test(arguments: kinds)
    func someoneNeverInvitedGetsNothing(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let share = try await fixture.share(with: ["bob"], permission: .readWrite)
            let dave = try await store.container(user: "dave")
            let metadataError = await cloudError { _ = try await dave.shareMetadata(for: try #require(share.url)) }
            #expect(metadataError?.code == .participantMayNeedVerification)
            let zoneID = Self.sharedZone(fixture)
            let fetchError = await cloudError { _ = try await dave.sharedCloudDatabase.record(for: Record.ID(recordName: "friday", zoneID: zoneID)) }
            #expect(fetchError?.code == .zoneNotFound)
            let queryError = await cloudError {
                _ = try await dave.sharedCloudDatabase.records(matching: Query(recordType: "Restaurant", predicate: Predicate(value: true)), inZoneWith: zoneID)
            }
            #expect(queryError?.code == .zoneNotFound)
            let changesError = await cloudError { _ = try await dave.sharedCloudDatabase.recordZoneChanges(inZoneWith: zoneID, since: nil) }
            #expect(changesError?.code == .zoneNotFound)
            #expect(try await dave.sharedCloudDatabase.allRecordZones().isEmpty)
            // bob, invited but not yet accepted, has no zone either.
            let bob = try await store.container(user: "bob")
            #expect(try await bob.sharedCloudDatabase.allRecordZones().isEmpty)
        }
    }

    @Test(arguments: kinds)
    func aRecordCanBeInOneShareOnly(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            _ = try await fixture.share(with: ["bob"], permission: .readOnly)
            let root = try await fixture.alice.privateCloudDatabase.record(for: fixture.list.recordID)
            let second = Share(rootRecord: root)
            let (saved, _) = try await fixture.alice.privateCloudDatabase.modifyRecords(saving: [root, second], deleting: [], atomically: false)
            let error = await cloudError { _ = try saved[second.recordID]?.get() }
            #expect(error?.code == .alreadyShared)
            let zoneWide = await cloudError { _ = try await fixture.alice.privateCloudDatabase.save(Share(recordZoneID: fixture.zone)) }
            #expect(zoneWide?.code == .alreadyShared)
        }
    }

    @Test(arguments: kinds)
    func aTamperedOrUnknownURLIsRefused(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let share = try await fixture.share(with: ["bob"], permission: .readOnly)
            let url = try #require(share.url)
            let guid = url.lastPathComponent
            #expect(guid.count == 22, "128 random bits, base64url")
            let bob = try await store.container(user: "bob")
            let flipped = String(guid.dropLast()) + (guid.last == "A" ? "B" : "A")
            let tampered = try #require(URL(string: url.absoluteString.replacingOccurrences(of: guid, with: flipped)))
            let error = await cloudError { _ = try await bob.shareMetadata(for: tampered) }
            #expect(error?.code == .unknownItem)
            let garbage = await cloudError { _ = try await bob.shareMetadata(for: try #require(URL(string: "localcloud://share/../../etc"))) }
            #expect(garbage?.code == .unknownItem)
        }
    }

    @Test(arguments: kinds)
    func removingAParticipantEndsTheirAccessAtOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let share = try await fixture.share(with: ["bob"], permission: .readWrite)
            let bob = try await store.container(user: "bob")
            try await bob.accept(try await bob.shareMetadata(for: try #require(share.url)))
            let shared = bob.sharedCloudDatabase
            let zoneID = Self.sharedZone(fixture)
            let before = try await shared.databaseChanges(since: nil)
            #expect(before.modifications.map(\.zoneID) == [zoneID])
            let zoneToken = try await shared.recordZoneChanges(inZoneWith: zoneID, since: nil).changeToken

            let current = try #require(try await fixture.alice.privateCloudDatabase.record(for: share.recordID) as? Share)
            current.removeParticipant(try #require(current.participants.first { $0.role == .privateUser }))
            _ = try await fixture.alice.privateCloudDatabase.save(current)

            let fetchError = await cloudError { _ = try await shared.record(for: Record.ID(recordName: "friday", zoneID: zoneID)) }
            #expect(fetchError?.code == .zoneNotFound)
            let tokenError = await cloudError { _ = try await shared.recordZoneChanges(inZoneWith: zoneID, since: zoneToken) }
            #expect(tokenError?.code == .zoneNotFound, "an open change token stops working too")
            let write = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "late", zoneID: zoneID))
            write.setParent(Record.ID(recordName: "friday", zoneID: zoneID))
            let writeError = await cloudError { _ = try await shared.save(write) }
            #expect(writeError?.code == .zoneNotFound)
            let after = try await shared.databaseChanges(since: before.changeToken)
            #expect(after.deletions.map(\.zoneID) == [zoneID], "the zone is reported gone")
            #expect(try await shared.allRecordZones().isEmpty)
            let metadataError = await cloudError { _ = try await bob.shareMetadata(for: try #require(share.url)) }
            #expect(metadataError?.code == .participantMayNeedVerification)
        }
    }

    @Test(arguments: kinds)
    func deletingTheRootOrTheShareEndsEveryonesAccess(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let share = try await fixture.share(with: ["bob"], permission: .readWrite)
            let bob = try await store.container(user: "bob")
            try await bob.accept(try await bob.shareMetadata(for: try #require(share.url)))
            let zoneID = Self.sharedZone(fixture)
            _ = try await bob.sharedCloudDatabase.record(for: Record.ID(recordName: "homei", zoneID: zoneID))

            _ = try await fixture.alice.privateCloudDatabase.deleteRecord(withID: share.recordID)
            let afterShare = await cloudError { _ = try await bob.sharedCloudDatabase.record(for: Record.ID(recordName: "homei", zoneID: zoneID)) }
            #expect(afterShare?.code == .zoneNotFound)
            let root = try await fixture.alice.privateCloudDatabase.record(for: fixture.list.recordID)
            #expect(root.share == nil, "the root is free for a new share")

            // A new share, accepted, then the root deleted: the share goes with it.
            let again = try await fixture.share(with: ["bob"], permission: .readWrite)
            try await bob.accept(try await bob.shareMetadata(for: try #require(again.url)))
            _ = try await bob.sharedCloudDatabase.record(for: Record.ID(recordName: "homei", zoneID: zoneID))
            _ = try await fixture.alice.privateCloudDatabase.deleteRecord(withID: fixture.list.recordID)
            let afterRoot = await cloudError { _ = try await bob.sharedCloudDatabase.record(for: Record.ID(recordName: "homei", zoneID: zoneID)) }
            #expect(afterRoot?.code == .zoneNotFound)
            let shareGone = await cloudError { _ = try await fixture.alice.privateCloudDatabase.record(for: again.recordID) }
            #expect(shareGone?.code == .unknownItem)
        }
    }

    @Test(arguments: kinds)
    func aPublicLinkLetsAnyoneJoinAtItsPermission(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let share = Share(rootRecord: fixture.list)
            share.publicPermission = .readOnly
            let (saved, _) = try await fixture.alice.privateCloudDatabase.modifyRecords(saving: [fixture.list, share], deleting: [],
                                                                                         savePolicy: .changedKeys)
            let link = try #require(try saved[share.recordID]?.get() as? Share)
            let eve = try await store.container(user: "eve")
            let metadata = try await eve.shareMetadata(for: try #require(link.url))
            #expect(metadata.participantRole == .publicUser && metadata.participantPermission == .readOnly)
            let joined = try await eve.accept(metadata)
            #expect(joined.currentUserParticipant?.role == .publicUser)
            let zoneID = Self.sharedZone(fixture)
            let entry = try await eve.sharedCloudDatabase.record(for: Record.ID(recordName: "homei", zoneID: zoneID))
            entry["name"] = "Eve was here"
            #expect(await cloudError { _ = try await eve.sharedCloudDatabase.save(entry) }?.code == .permissionFailure)

            // Private participants don't mix with a public share.
            let current = try #require(try await fixture.alice.privateCloudDatabase.record(for: share.recordID) as? Share)
            current.addParticipant(try await fixture.alice.shareParticipant(forUserRecordID: Record.ID(recordName: "_bob")))
            #expect(await cloudError { _ = try await fixture.alice.privateCloudDatabase.save(current) }?.code == .invalidArguments)

            // Back to none: the public users are gone.
            let closing = try #require(try await fixture.alice.privateCloudDatabase.record(for: share.recordID) as? Share)
            closing.publicPermission = .none
            _ = try await fixture.alice.privateCloudDatabase.save(closing)
            let closed = await cloudError { _ = try await eve.sharedCloudDatabase.record(for: entry.recordID) }
            #expect(closed?.code == .zoneNotFound)
        }
    }

    /// A participant's database subscription in the shared database hears the owner's edits, and
    /// stops hearing them once removed.
    @Test(arguments: kinds)
    func theSharedDatabaseNotifiesParticipantsUntilRemoved(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let share = try await fixture.share(with: ["bob"], permission: .readWrite)
            let bob = try await store.container(user: "bob")
            try await bob.accept(try await bob.shareMetadata(for: try #require(share.url)))
            _ = try await bob.sharedCloudDatabase.save(DatabaseSubscription(subscriptionID: "shared-lists"))
            _ = try await bob.privateCloudDatabase.save(DatabaseSubscription(subscriptionID: "own"))
            let bobsZone = try await bob.privateCloudDatabase.save(RecordZone(zoneName: "Mine")).zoneID
            let received = NotificationBox()
            let listener = Task {
                for await notification in bob.notifications { received.append(notification) }
            }
            defer { listener.cancel() }
            // alice edits until bob's watcher runs (a notification for an earlier save is not replayed).
            var edits = 0
            let heard = try await poll(timeout: .seconds(30)) {
                let entry = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "edit-\(edits)", zoneID: fixture.zone))
                entry["name"] = "Edit \(edits)"
                entry.setParent(fixture.list)
                _ = try await fixture.alice.privateCloudDatabase.save(entry)
                edits += 1
                return await poll(timeout: .milliseconds(500)) { received.items.contains { $0.subscriptionID == "shared-lists" } }
            }
            #expect(heard)
            let first = try #require(received.items.first { $0.subscriptionID == "shared-lists" })
            #expect(first.databaseScope == .shared)
            // CloudKit Web Services' database notifications name no zone; in-process ones do, with the owner.
            #expect(first.recordZoneID == nil ? kind == .remote : first.recordZoneID == Self.sharedZone(fixture))

            // Removed: alice's next edit is not heard. bob's own save after it is, and notifications
            // arrive in commit order, so once his is in, alice's would have been too.
            let current = try #require(try await fixture.alice.privateCloudDatabase.record(for: share.recordID) as? Share)
            current.removeParticipant(try #require(current.participants.first { $0.role == .privateUser }))
            _ = try await fixture.alice.privateCloudDatabase.save(current)
            let before = received.items.filter { $0.subscriptionID == "shared-lists" }.count
            let late = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "after-removal", zoneID: fixture.zone))
            late.setParent(fixture.list)
            _ = try await fixture.alice.privateCloudDatabase.save(late)
            let mine = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "bobs-own", zoneID: bobsZone))
            _ = try await bob.privateCloudDatabase.save(mine)
            #expect(await poll { received.items.contains { $0.subscriptionID == "own" } })
            let after = received.items.filter { $0.subscriptionID == "shared-lists" }
            #expect(!after.contains { $0.recordID?.recordName == "after-removal" }, "a removed participant hears nothing more")
            #expect(after.count <= before + 1, "at most the share's own save, committed before the removal took effect")
        }
    }

    /// A participant of a hierarchy share hears only of the records it covers: the root and the
    /// records below it, not the other records of the owner's zone. (The shared database takes
    /// database subscriptions only, as in CloudKit; over the wire they name no record, so the
    /// notifications are counted, with bob's own saves as fences: they arrive in commit order.)
    @Test(arguments: kinds)
    func aHierarchyParticipantHearsOnlyOfTheSharedRecords(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let share = try await fixture.share(with: ["bob"], permission: .readOnly)
            let bob = try await store.container(user: "bob")
            try await bob.accept(try await bob.shareMetadata(for: try #require(share.url)))
            _ = try await bob.sharedCloudDatabase.save(DatabaseSubscription(subscriptionID: "shared-lists"))
            _ = try await bob.privateCloudDatabase.save(DatabaseSubscription(subscriptionID: "own"))
            let bobsZone = try await bob.privateCloudDatabase.save(RecordZone(zoneName: "Mine")).zoneID
            let received = NotificationBox()
            let listener = Task {
                for await notification in bob.notifications { received.append(notification) }
            }
            defer { listener.cancel() }
            func count(_ subscription: String) -> Int { received.items.filter { $0.subscriptionID == subscription }.count }
            // alice saves entries under the list until bob's watcher runs.
            var edits = 0
            let warm = try await poll(timeout: .seconds(30)) {
                let entry = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "warm-\(edits)", zoneID: fixture.zone))
                entry.setParent(fixture.list)
                _ = try await fixture.alice.privateCloudDatabase.save(entry)
                edits += 1
                return await poll(timeout: .milliseconds(500)) { count("shared-lists") > 0 }
            }
            #expect(warm)
            var fences = 0
            func fence() async throws {
                fences += 1
                let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "bobs-\(fences)", zoneID: bobsZone))
                _ = try await bob.privateCloudDatabase.save(record)
                let wanted = fences
                #expect(await poll { count("own") >= wanted })
            }
            try await fence()
            let before = count("shared-lists")

            // Outside the hierarchy: a new record with no parent, an edit of the unrelated one, and a
            // record whose parent is outside; inside it: an entry two levels below the root.
            let outside = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "outside", zoneID: fixture.zone))
            let note = try await fixture.alice.privateCloudDatabase.record(for: fixture.unrelated.recordID)
            note["name"] = "Still not shared"
            let below = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "below-outside", zoneID: fixture.zone))
            below.setParent(note)
            for record in [outside, note, below] { _ = try await fixture.alice.privateCloudDatabase.save(record) }
            try await fence()
            #expect(count("shared-lists") == before, "records outside the share reached bob: \(received.items.map { $0.recordID?.recordName ?? "?" })")

            let deep = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "deep-inside", zoneID: fixture.zone))
            deep.setParent(fixture.entries[0])
            _ = try await fixture.alice.privateCloudDatabase.save(deep)
            try await fence()
            #expect(count("shared-lists") == before + 1, "bob hears of the entry two levels below the shared root")
            let names = received.items.compactMap { $0.subscriptionID == "shared-lists" ? $0.recordID?.recordName : nil }
            for name in ["outside", "private-note", "below-outside"] { #expect(!names.contains(name)) }
        }
    }

    /// Deletions too: a participant of a hierarchy share hears of a deleted record (zone changes,
    /// database changes and push) only when it was inside the hierarchy. The store keeps the
    /// parent a deleted record had, since a deleted record leaves no chain to walk; records deleted
    /// together (an entry and the record below it) are judged by the parents they had.
    @Test(arguments: kinds)
    func aHierarchyParticipantHearsOnlyOfDeletionsInsideTheHierarchy(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let db = fixture.alice.privateCloudDatabase
            // Outside the hierarchy: "private-note", and a record below it. Inside: a record below an entry.
            let belowNote = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "below-note", zoneID: fixture.zone))
            belowNote.setParent(fixture.unrelated)
            let deep = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "deep-inside", zoneID: fixture.zone))
            deep.setParent(fixture.entries[1])
            let (created, _) = try await db.modifyRecords(saving: [belowNote, deep], deleting: [])
            for result in created.values { _ = try result.get() }
            let share = try await fixture.share(with: ["bob"], permission: .readOnly)
            let bob = try await store.container(user: "bob")
            try await bob.accept(try await bob.shareMetadata(for: try #require(share.url)))
            let shared = bob.sharedCloudDatabase
            let zoneID = Self.sharedZone(fixture)
            var zoneToken = try await shared.recordZoneChanges(inZoneWith: zoneID, since: nil).changeToken
            var databaseToken = try await shared.databaseChanges(since: nil).changeToken

            _ = try await shared.save(DatabaseSubscription(subscriptionID: "shared-lists"))
            _ = try await bob.privateCloudDatabase.save(DatabaseSubscription(subscriptionID: "own"))
            let bobsZone = try await bob.privateCloudDatabase.save(RecordZone(zoneName: "Mine")).zoneID
            let received = NotificationBox()
            let listener = Task {
                for await notification in bob.notifications { received.append(notification) }
            }
            defer { listener.cancel() }
            func count(_ subscription: String) -> Int { received.items.filter { $0.subscriptionID == subscription }.count }
            // alice saves entries under the list until bob's watcher runs.
            var edits = 0
            let warm = try await poll(timeout: .seconds(30)) {
                let entry = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "warm-\(edits)", zoneID: fixture.zone))
                entry.setParent(fixture.list)
                _ = try await db.save(entry)
                edits += 1
                return await poll(timeout: .milliseconds(500)) { count("shared-lists") > 0 }
            }
            #expect(warm)
            var fences = 0
            func fence() async throws {
                fences += 1
                let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "bobs-\(fences)", zoneID: bobsZone))
                _ = try await bob.privateCloudDatabase.save(record)
                let wanted = fences
                #expect(await poll { count("own") >= wanted })
            }
            try await fence()
            zoneToken = try await shared.recordZoneChanges(inZoneWith: zoneID, since: zoneToken).changeToken
            databaseToken = try await shared.databaseChanges(since: databaseToken).changeToken
            let before = count("shared-lists")

            // Deletions outside the hierarchy: not heard, in any of the three ways.
            _ = try await db.modifyRecords(saving: [], deleting: [belowNote.recordID])
            _ = try await db.modifyRecords(saving: [], deleting: [fixture.unrelated.recordID])
            try await fence()
            #expect(count("shared-lists") == before, "deletions outside the share reached bob: \(received.items.map { $0.recordID?.recordName ?? "?" })")
            let outside = try await shared.recordZoneChanges(inZoneWith: zoneID, since: zoneToken)
            #expect(outside.deletions.isEmpty, "bob heard of \(outside.deletions.map(\.recordID.recordName))")
            #expect(outside.modificationResultsByID.isEmpty)
            let outsideZones = try await shared.databaseChanges(since: databaseToken)
            #expect(outsideZones.modifications.isEmpty, "the shared database reported the zone for deletions bob cannot see")
            zoneToken = outside.changeToken
            databaseToken = outsideZones.changeToken

            // Deletions inside it: an entry and the record below it, together (both gone, so the
            // chain comes from the parents they had), then the rest of the entries one by one.
            _ = try await db.modifyRecords(saving: [], deleting: [deep.recordID, fixture.entries[1].recordID])
            try await fence()
            #expect(count("shared-lists") > before, "bob hears of deletions inside the hierarchy")
            let inside = try await shared.recordZoneChanges(inZoneWith: zoneID, since: zoneToken)
            #expect(Set(inside.deletions.map(\.recordID.recordName)) == ["deep-inside", "homei"])
            #expect(inside.deletions.allSatisfy { $0.recordID.zoneID == zoneID })
            let insideZones = try await shared.databaseChanges(since: databaseToken)
            #expect(insideZones.modifications.map(\.zoneID) == [zoneID])
            let names = received.items.compactMap { $0.subscriptionID == "shared-lists" ? $0.recordID?.recordName : nil }
            for name in ["private-note", "below-note"] { #expect(!names.contains(name)) }
        }
    }

    /// Finding a participant by email address: the account registered with it (`localcloud users
    /// add NAME --email ADDRESS`), on every store, the embedded one included (its data directory's
    /// accounts). An unknown address, or an account left out of discovery, gets CloudKit's error.
    @Test(arguments: kinds)
    func aParticipantIsFoundByEmailAddress(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let fixture = try await Fixture(store)
            let before = await cloudError { _ = try await fixture.alice.shareParticipant(forEmailAddress: "bob@example.com") }
            #expect(before?.code == .unknownItem, "no account has the address yet")
            try await store.addAccount("bob", email: "Bob@Example.com")
            let participant = try await fixture.alice.shareParticipant(forEmailAddress: " BOB@example.com ")
            #expect(participant.userIdentity.userRecordID?.recordName == "_bob")
            #expect(participant.role == .privateUser && participant.acceptanceStatus == .pending)
            let unknown = await cloudError { _ = try await fixture.alice.shareParticipant(forEmailAddress: "carol@example.com") }
            #expect(unknown?.code == .unknownItem)
            let invalid = await cloudError { _ = try await fixture.alice.shareParticipant(forEmailAddress: "not an address") }
            #expect(invalid?.code == .unknownItem)

            // The participant found by email is bob: he accepts and reads the list.
            let root = try await fixture.alice.privateCloudDatabase.record(for: fixture.list.recordID)
            let share = Share(rootRecord: root)
            var invited = participant
            invited.permission = .readOnly
            share.addParticipant(invited)
            let (saved, _) = try await fixture.alice.privateCloudDatabase.modifyRecords(saving: [root, share], deleting: [])
            let url = try #require((try saved[share.recordID]?.get() as? Share)?.url)
            let bob = try await store.container(user: "bob")
            try await bob.accept(try await bob.shareMetadata(for: url))
            let list = try await bob.sharedCloudDatabase.record(for: Record.ID(recordName: "friday", zoneID: Self.sharedZone(fixture)))
            #expect(list["name"] as? String == "Friday")
        }
    }
}
