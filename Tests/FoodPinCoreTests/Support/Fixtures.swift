import Foundation
@testable import FoodPinCore

/// A fixed "now" so ages like "5 min ago" are stable.
let testNow = Date(timeIntervalSince1970: 1_800_000_000)

extension Restaurant {
    /// A restaurant created `minutesAgo` before ``testNow``.
    static func fixture(
        _ id: String, _ name: String? = nil, minutesAgo: Double = 0, by user: String = "alice",
        type: String = "Cafe", location: String = "Hong Kong", description: String = ""
    ) -> Restaurant {
        Restaurant(id: id, name: name ?? "Restaurant \(id)", type: type, location: location, phone: "123",
                   description: description, createdAt: testNow.addingTimeInterval(-minutesAgo * 60), createdBy: user)
    }
}

/// `count` restaurants named r0, r1, … newest first, one minute apart, starting `start` minutes ago.
func restaurants(_ range: Range<Int>) -> [Restaurant] {
    range.map { Restaurant.fixture("r\($0)", minutesAgo: Double($0 + 1)) }
}

func page(_ items: [Restaurant], cursor: String? = nil) -> DiscoverPage {
    DiscoverPage(restaurants: items, cursor: cursor.map { PageCursor($0) })
}

/// A thumbnail of one repeated cell, like a solid-colour image.
struct FakeThumbnail: ThumbnailImage {
    var columns: Int
    var rows: Int
    var fill: Character = "█"
    var color: Color = .indexed(196)
    func cell(column: Int, row: Int) -> Cell { Cell(fill, style: CellStyle(foreground: color)) }
    var cost: Int { columns * rows * 16 }
}

extension FormServices {
    /// A fake file system: directories by path, and a probe that accepts only the listed images.
    static func fake(
        home: String = "/home/alice",
        directories: [String: [DirectoryEntry]] = [:],
        images: Set<String> = []
    ) -> FormServices {
        FormServices(
            homeDirectory: home,
            listDirectory: { path in
                let normalized = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
                return directories[normalized]
            },
            probeImage: { images.contains($0) ? nil : "Not a readable image" }
        )
    }
}

extension RestaurantForm {
    /// Applies a key and, as the effect handler would later, answers its probe or listing from `services`.
    mutating func press(_ key: Key, answering services: FormServices) -> Action {
        switch handle(key) {
        case .probeImage(let path): return imageProbed(path: path, problem: services.probeImage(path))
        case .listDirectory(let path):
            for queued in directoryListed(path, entries: services.listDirectory(path)) { _ = handle(queued) }
            return .none
        case let action: return action
        }
    }
}

extension AppState {
    /// A state at `width`×`height` with the first page loaded.
    static func loaded(
        _ items: [Restaurant], cursor: String? = nil, width: Int = 60, height: Int = 14,
        config: AppConfig = AppConfig(currentUser: "alice", formServices: .fake())
    ) -> AppState {
        var state = AppState(config: config, width: width, height: height, now: testNow)
        _ = FoodPinCore.update(&state, .start)
        _ = FoodPinCore.update(&state, .pageLoaded(.first, .success(page(items, cursor: cursor))))
        return state
    }
}

/// Applies messages in order and returns the effects of the last one.
@discardableResult
func send(_ state: inout AppState, _ messages: Msg...) -> [Effect] {
    var effects: [Effect] = []
    for message in messages { effects = update(&state, message) }
    return effects
}

func keys(_ text: String) -> [Msg] { text.map { .key(.character($0)) } }

/// Polls `condition` until it holds or `timeout` passes; no fixed sleeps.
func waitUntil(timeout: Duration = .seconds(30), _ condition: @Sendable () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}
