import ArgumentParser
import FoodPinCore
import Foundation

/// `foodpin list [--json] [--limit N] [--search TEXT]`: restaurants newest first, through the
/// screen's query path; with `--search`, those matching every word of TEXT, as `/` finds them.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print restaurants, newest first."
    )

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Print a JSON array instead of one line per restaurant.")
    var json = false

    @Option(help: ArgumentHelp("Print at most this many restaurants.", valueName: "n"))
    var limit: Int?

    @Option(help: ArgumentHelp("Only restaurants whose name, type, location or description contain every word of this text.",
                               valueName: "text"))
    var search: String?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more.") }
    }

    mutating func run() async throws {
        let session = CloudSession(options: options)
        defer { session.leaveOpenAtExit() }
        let backend = session.backend
        let (limit, json, search) = (limit, json, search)
        let restaurants: [Restaurant]
        do {
            restaurants = limit == 0 ? [] : try await { () async throws in
                try await backend.restaurants(matching: search, limit: limit, includingImages: json)
            }()
        } catch {
            printFailure("foodpin list", TextSanitizer.line(DiscoverError(error, while: .loadFailed).message))
            throw ExitCode(1)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(restaurants)
            print(String(decoding: data, as: UTF8.self))
        } else {
            for restaurant in restaurants { print(Self.line(for: restaurant)) }
        }
    }

    /// `name · type · location · by alice · 2026-…Z · record-name`, with record text sanitized.
    static func line(for restaurant: Restaurant) -> String {
        [restaurant.name, restaurant.type, restaurant.location, "by " + restaurant.createdBy,
         restaurant.createdAt.formatted(.iso8601), restaurant.id]
            .map(TextSanitizer.line).joined(separator: " · ")
    }
}
