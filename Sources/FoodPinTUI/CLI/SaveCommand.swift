import ArgumentParser
import FoodPinCore
import Foundation

/// `foodpin save RESTAURANT --to LIST`: saves a Discover restaurant (by name or record name) to
/// one of my lists, or to a list shared with me by that name; a new list of mine otherwise.
struct SaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Save a restaurant to a list (a new list is created)."
    )

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The restaurant's name or record name.", valueName: "restaurant"))
    var restaurant: String

    @Option(name: .customLong("to"), help: ArgumentHelp("The list's name.", valueName: "list"))
    var list: String

    mutating func run() async throws {
        let session = CloudSession(options: options)
        defer { session.leaveOpenAtExit() }
        let (lists, seeder) = (session.lists, session.seeder)
        let (restaurant, list) = (restaurant, list)
        do {
            let (saved, alreadyThere) = try await { () async throws in
                try await seeder?.ensureSchema()
                return try await lists.save(restaurantNamed: restaurant, toList: list)
            }()
            let name = TextSanitizer.line(saved.name)
            if alreadyThere {
                print("already on \(name) (\(ListsCommand.count(saved.count)))")
            } else {
                print("saved to \(name) (\(ListsCommand.count(saved.count)))")
            }
            if session.container.pendingChanges().contains(where: { $0.failure == nil }) {
                printError("queued: uploads when the server is reachable")
            }
            for refused in lists.refusedChanges() {
                printError("refused: " + refused.message)
            }
        } catch {
            printFailure("foodpin save", TextSanitizer.line(DiscoverError(error, while: .saveFailed).message))
            throw ExitCode(1)
        }
    }
}
