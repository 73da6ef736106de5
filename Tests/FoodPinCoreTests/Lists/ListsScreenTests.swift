import Foundation
import Testing
@testable import FoodPinCore

/// The Lists screens' state machine and their snapshots.
@Suite struct ListsScreenTests {
    let friday = RestaurantListSummary(ref: RestaurantListRef(recordName: "L1"), name: "Friday", count: 3,
                                       sharedWith: ["bob", "carol (read-only)"])
    let lunch = RestaurantListSummary(ref: RestaurantListRef(recordName: "L2", ownerName: "_bob"), name: "Team lunch",
                                      count: 2, owner: "bob", canWrite: false)

    func discover(width: Int = 60, height: Int = 14) -> AppState {
        AppState.loaded([Restaurant.fixture("a", "Cafe Deadend", minutesAgo: 5, type: "Coffee & Tea", location: "Hong Kong"),
                         Restaurant.fixture("b", "Homei", minutesAgo: 90, by: "bob", type: "Cafe", location: "Sydney")],
                        width: width, height: height,
                        config: AppConfig(colorMode: .colors256, currentUser: "alice", showsImages: true, formServices: .fake()))
    }

    func overview() -> RestaurantListsOverview { RestaurantListsOverview(mine: [friday], sharedWithMe: [lunch]) }

    @Test func lOpensListsAndLoadsThem() {
        var state = discover()
        #expect(send(&state, .key(.character("l"))).first == .loadLists)
        #expect(state.screen == .lists)
        #expect(state.lists.isLoading)
        _ = send(&state, .listsLoaded(.success(overview())))
        #expect(!state.lists.isLoading)
        #expect(state.lists.selected == friday)
        _ = send(&state, .key(.character("j")), .key(.character("j")))
        #expect(state.lists.selected == lunch, "the selection stops at the last list")
        _ = send(&state, .key(.escape))
        #expect(state.screen == .list)
    }

    @Test func listsSnapshot() {
        var state = discover()
        _ = send(&state, .key(.character("l")), .listsLoaded(.success(overview())))
        let grid = view(state, width: 60, height: 14)
        let lines = grid.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 14)
        #expect(lines[0].hasPrefix(" FoodPin · Lists") && lines[0].contains("2 lists"))
        #expect(lines[2].trimmingCharacters(in: .whitespaces) == "My lists")
        #expect(lines[3].hasPrefix("▌  Friday  3 restaurants · shared with bob, carol"))
        #expect(lines[5].trimmingCharacters(in: .whitespaces) == "Shared with me")
        #expect(lines[6].trimmingCharacters(in: .whitespaces) == "Team lunch  by bob · 2 restaurants · read-only")
        #expect(lines[13].contains("Enter open") && lines[13].contains("Esc Discover"))
    }

    @Test func aRefusedOfflineChangeIsShownWrappedAndSanitized() {
        var state = discover()
        var withRefusal = RestaurantListsOverview(mine: [friday])
        withRefusal.refused = [RefusedListChange(restaurant: "Addis\u{1B}[31m Injera", isRemoval: false, owner: "bob",
                                                 reason: "Zone not found in the shared database: Lists")]
        _ = send(&state, .key(.character("l")), .listsLoaded(.success(withRefusal)))
        let grid = view(state, width: 60, height: 14)
        let text = grid.text
        #expect(!text.contains("\u{1B}"), "record text never drives the terminal")
        let message = grid.lines.filter { $0.contains("✗") || $0.hasPrefix("   ") }.joined(separator: " ")
        #expect(text.contains("✗ “Addis"), "\(text)")
        let joined = grid.lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(joined.contains("was not saved to bob's list: the server refused it (Zone not found in the shared database: Lists); it stays in the outbox"),
                "\(message)")
        #expect(grid.lines.allSatisfy { DisplayWidth.of($0) <= 60 })
    }

    @Test func enterOpensAListAndItsThumbnailsLoad() {
        var state = discover()
        _ = send(&state, .key(.character("l")), .listsLoaded(.success(overview())))
        #expect(send(&state, .key(.enter)) == [.loadListEntries(friday.ref)])
        #expect(state.screen == .listEntries)
        let entries = [Restaurant.fixture("e1", "Cafe Deadend", minutesAgo: 5, type: "Coffee & Tea", location: "Hong Kong"),
                       Restaurant.fixture("e2", "Homei", minutesAgo: 3, by: "bob", type: "Cafe", location: "Sydney")]
        let effects = send(&state, .listEntriesLoaded(friday.ref, .success(entries)))
        let keys = entries.map { RestaurantListRecord.thumbnailID(entry: $0.id, in: friday.ref) }
        #expect(effects == [.loadThumbnails(ids: keys, size: .row)])
        _ = send(&state, .thumbnailLoaded(ThumbnailKey(recordID: keys[0], size: .row), .image(FakeThumbnail(columns: 6, rows: 3))))
        let grid = view(state, width: 60, height: 14)
        let lines = grid.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix(" FoodPin · Friday") && lines[0].contains("2 restaurants"))
        #expect(lines[2].hasPrefix("▌ ██████  Cafe Deadend"))
        #expect(lines[3].hasPrefix("▌ ██████  Coffee & Tea · Hong Kong"))
        #expect(lines[4].hasPrefix("▌ ██████  saved 5 min ago by alice"))
        #expect(lines[5].hasPrefix("          Homei"))
        #expect(lines[6].hasPrefix("    ◌     Cafe · Sydney"), "the second thumbnail is still loading")
        #expect(lines[7].hasPrefix("          saved 3 min ago by bob"))
        #expect(lines[13].contains("d remove") && lines[13].contains("Esc lists"))
    }

    @Test func dRemovesWhereTheUserMayWriteAndRefusesInOneLineElsewhere() {
        var state = discover()
        _ = send(&state, .key(.character("l")), .listsLoaded(.success(overview())), .key(.enter))
        let entries = [Restaurant.fixture("e1", "Cafe Deadend", minutesAgo: 5), Restaurant.fixture("e2", "Homei", minutesAgo: 3)]
        _ = send(&state, .listEntriesLoaded(friday.ref, .success(entries)))
        #expect(send(&state, .key(.character("d"))).first == .removeListEntry(friday.ref, id: "e1"))
        #expect(state.lists.entries.map(\.id) == ["e2"])
        // The store refused it after all: the list is read again, and the reason shows.
        #expect(send(&state, .listEntryRemoved(friday.ref, id: "e1", DiscoverError(.permissionDenied, "Permission Failure: no")))
                == [.loadListEntries(friday.ref)])
        #expect(view(state, width: 60, height: 14).text.split(separator: "\n")[1].contains("Couldn't remove it: Permission Failure: no"))

        _ = send(&state, .key(.escape), .listsLoaded(.success(overview())), .key(.character("j")), .key(.enter))
        _ = send(&state, .listEntriesLoaded(lunch.ref, .success(entries)))
        #expect(send(&state, .key(.character("d"))).isEmpty)
        #expect(state.lists.entries.count == 2)
        let status = String(view(state, width: 60, height: 14).text.split(separator: "\n")[1])
        #expect(status.contains("Read-only: bob shared “Team lunch” with you read-only"))
    }

    @Test func sPicksAListOrANewName() {
        var state = discover()
        #expect(send(&state, .key(.character("s"))) == [.loadLists])
        _ = send(&state, .listsLoaded(.success(overview())))
        // Read-only lists are not offered.
        #expect(state.lists.picker?.names == ["Friday"])
        #expect(send(&state, .key(.enter)) == [.saveToList(restaurantID: "a", list: "Friday")])
        _ = send(&state, .savedToList(name: "Friday", .success(false)))
        #expect(state.lists.picker == nil)
        #expect(view(state, width: 60, height: 14).text.split(separator: "\n")[1].contains("Saved to “Friday”"))

        _ = send(&state, .key(.character("s")), .listsLoaded(.success(overview())))
        for key in keys("Date night") { _ = send(&state, key) }
        #expect(state.lists.picker?.isOnNewListRow == true)
        #expect(send(&state, .key(.enter)) == [.saveToList(restaurantID: "a", list: "Date night")])
        _ = send(&state, .savedToList(name: "Date night", .failure(DiscoverError(.offline, "down"))))
        #expect(view(state, width: 60, height: 14).text.split(separator: "\n")[1].contains("Couldn't save to “Date night”: down"))
        _ = send(&state, .key(.character("s")), .listsLoaded(.success(overview())), .key(.escape))
        #expect(state.lists.picker == nil && state.screen == .list)
    }

    @Test func liveChangesRaiseTheBannerAndRReadsAgain() {
        var state = discover()
        _ = send(&state, .key(.character("l")), .listsLoaded(.success(overview())), .key(.enter))
        _ = send(&state, .listEntriesLoaded(friday.ref, .success([])), .listsChanged(1), .listsChanged(1))
        #expect(view(state, width: 60, height: 14).text.split(separator: "\n")[1].contains("2 changes by others — press r"))
        #expect(send(&state, .key(.character("r"))) == [.loadListEntries(friday.ref), .loadLists])
        #expect(state.lists.liveChanges == 0)
    }

    @Test func aListTheUserWasRemovedFromCloses() {
        var state = discover()
        _ = send(&state, .key(.character("l")), .listsLoaded(.success(overview())), .key(.character("j")), .key(.enter))
        #expect(send(&state, .listEntriesLoaded(lunch.ref, .failure(DiscoverError(.notFound, "Zone not found")))) == [.loadLists])
        #expect(state.screen == .lists)
        #expect(state.lists.notice == "“Team lunch” is no longer shared with you")
        _ = send(&state, .listsLoaded(.success(RestaurantListsOverview(mine: [friday]))))
        #expect(state.lists.selected == friday)
    }

    @Test func thumbnailIDsRoundTrip() {
        let id = RestaurantListRecord.thumbnailID(entry: "E1", in: lunch.ref)
        let parsed = RestaurantListRecord.parseThumbnailID(id)
        #expect(parsed?.entry == "E1" && parsed?.ref.ownerName == "_bob" && parsed?.ref.zoneName == "Lists")
        #expect(RestaurantListRecord.parseThumbnailID("sample-cafe-deja-vu") == nil)
    }
}
