import Foundation
@testable import LocalCloud
import Testing

/// The log-to-page steps both stores share (``ZoneChangeCollector``, ``DatabaseChangesPage/Collector``).
struct ChangeCollectorTests {
    @Test func zoneChangesCollapsePerRecordInFirstSeenOrderUpToTheLimit() {
        var collector = ZoneChangeCollector(limit: 2, after: 10)
        let taken = [
            collector.add(sequence: 11, name: "a", type: "Restaurant", kind: "created"),
            collector.add(sequence: 12, name: "", type: "", kind: "zoneDeleted"),
            collector.add(sequence: 13, name: "b", type: "Restaurant", kind: "created"),
            collector.add(sequence: 14, name: "a", type: "Restaurant", kind: "deleted"),
            // A third record does not fit: it is left, unconsumed, for the next page.
            collector.add(sequence: 15, name: "c", type: "Restaurant", kind: "created"),
        ]
        #expect(taken == [true, true, true, true, false])
        #expect(collector.moreComing)
        #expect(collector.consumed == 14)
        #expect(collector.changes.map(\.name) == ["a", "b"])
        #expect(collector.changes.map(\.deleted) == [true, false])
    }

    @Test func anEmptyLogKeepsTheTokensPosition() {
        let collector = ZoneChangeCollector(limit: 0, after: 7)
        #expect(collector.limit == 1)
        #expect(collector.consumed == 7)
        #expect(collector.changes.isEmpty)
        #expect(!collector.moreComing)
    }

    @Test func databaseChangesListTouchedZonesOnceSplitByWhetherTheyStillExist() {
        var collector = DatabaseChangesPage.Collector(limit: 2, after: 0)
        let taken = [
            collector.add(sequence: 1, zone: "Trips"), collector.add(sequence: 2, zone: "Old"),
            collector.add(sequence: 3, zone: "Trips"), collector.add(sequence: 4, zone: "New"),
        ]
        #expect(taken == [true, true, true, false])
        let page = collector.page(epoch: "e1", existing: ["_defaultZone", "Trips"])
        #expect(page.changedZones == [RecordZone.ID(zoneName: "Trips")])
        #expect(page.deletedZones == [RecordZone.ID(zoneName: "Old")])
        #expect(page.token == ServerChangeToken(epoch: "e1", sequence: 3))
        #expect(page.moreComing)
    }

    @Test func aTokenFromAnotherLogOrBelowTheFloorIsExpired() throws {
        let token = ServerChangeToken(epoch: "e1", sequence: 5)
        try token.check(epoch: "e1", floor: 5)
        #expect(throws: CloudError.self) { try token.check(epoch: "e2", floor: 0) }
        #expect(throws: CloudError.self) { try token.check(epoch: "e1", floor: 6) }
    }
}
