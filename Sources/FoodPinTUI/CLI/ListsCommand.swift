import ArgumentParser
import FoodPinCore
import Foundation

/// `foodpin lists [--json]`: my lists (name, count, who they are shared with) and the lists
/// shared with me (name, owner, count, permission).
///
/// The JSON is `{"mine":[{"name","count","sharedWith":[…]}],"sharedWithMe":[{"name","owner","count","permission"}]}`.
struct ListsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lists",
        abstract: "Print your lists of restaurants and those shared with you."
    )

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Print JSON instead of lines.")
    var json = false

    struct Output: Encodable {
        struct Mine: Encodable {
            var name: String
            var count: Int
            var sharedWith: [String]
        }
        struct Shared: Encodable {
            var name: String
            var owner: String
            var count: Int
            var permission: String
        }
        var mine: [Mine]
        var sharedWithMe: [Shared]
    }

    mutating func run() async throws {
        let session = CloudSession(options: options)
        defer { session.leaveOpenAtExit() }
        let (lists, seeder) = (session.lists, session.seeder)
        let overview: RestaurantListsOverview
        do {
            overview = try await { () async throws in
                try await seeder?.ensureSchema()
                // Changes saved while away go up first, so the counts include them and a refusal shows below.
                return try await lists.overviewAfterUploads()
            }()
        } catch {
            printFailure("foodpin lists", TextSanitizer.line(DiscoverError(error, while: .loadFailed).message))
            throw ExitCode(1)
        }
        defer { Self.reportOutbox(of: session) }
        if json {
            let output = Output(
                mine: overview.mine.map { Output.Mine(name: $0.name, count: $0.count, sharedWith: $0.sharedWith) },
                sharedWithMe: overview.sharedWithMe.map {
                    Output.Shared(name: $0.name, owner: $0.owner, count: $0.count, permission: $0.permission)
                })
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(output), as: UTF8.self))
            return
        }
        for list in overview.mine {
            let shared = list.sharedWith.isEmpty ? "not shared" : "shared with " + list.sharedWith.joined(separator: ", ")
            print([list.name, Self.count(list.count), shared].map(TextSanitizer.line).joined(separator: " · "))
        }
        for list in overview.sharedWithMe {
            print([list.name, "by " + list.owner, Self.count(list.count), list.permission].map(TextSanitizer.line)
                .joined(separator: " · "))
        }
        if overview.mine.isEmpty && overview.sharedWithMe.isEmpty {
            printError("No lists yet: foodpin save RESTAURANT --to LIST makes one")
        }
    }

    /// On stderr: that the lists are the cached ones while the server is away, what still waits
    /// to upload, and each change the server refused (it stays in the outbox).
    static func reportOutbox(of session: CloudSession) {
        if session.container.serverIsReachable == false {
            printError("offline: the lists as last read from the server")
        }
        if session.lists.hasWaitingChanges {
            printError("queued: list changes upload when the server is reachable")
        }
        for refused in session.lists.refusedChanges() {
            printError("refused: " + refused.message)
        }
    }

    static func count(_ count: Int) -> String { "\(count) restaurant\(count == 1 ? "" : "s")" }
}
