import Foundation
import LocalCloud
import Synchronization
import Testing
@testable import FoodPinCore

/// A backend whose store refuses everything the same way.
private final class SignedOutBackend: DiscoverBackend {
    let error = CloudError(.notAuthenticated, "No iCloud account")
    func firstPage(limit: Int) async throws -> DiscoverPage { throw error }
    func nextPage(after cursor: PageCursor, limit: Int) async throws -> DiscoverPage { throw error }
    func save(_ draft: RestaurantDraft) async throws -> Restaurant { throw error }
    func delete(id: String) async throws { throw error }
    func changes() -> AsyncStream<[RemoteChange]> { AsyncStream { $0.finish() } }
}

/// One `CloudError` → words mapping: the page load, the save and `foodpin add`/`list` (which call
/// the same `DiscoverError(_:while:)`) say the same thing.
@Suite struct ErrorWordingTests {
    @Test func aPageLoadAndASaveShowTheSameWords() async {
        let handler = DiscoverEffectHandler<FakeThumbnail>(backend: SignedOutBackend(), thumbnails: nil, formServices: .fake())
        let inbox = Mutex<[Msg]>([])
        let sink = MessageSink<Msg> { message in inbox.withLock { $0.append(message) } }
        handler.perform(.loadFirstPage(limit: 10), sink: sink)
        handler.perform(.save(RestaurantDraft(name: "N", type: "T", location: "L")), sink: sink)
        #expect(await waitUntil { inbox.withLock { $0.count } == 2 })
        var words: [String] = []
        for message in inbox.withLock({ $0 }) {
            switch message {
            case .pageLoaded(.first, .failure(let error)): words.append(error.message)
            case .saveFailed(let error): words.append(error.message)
            default: Issue.record("unexpected \(message)")
            }
        }
        #expect(words == ["Not signed in: No iCloud account", "Not signed in: No iCloud account"])
    }
}
