import ArgumentParser
import FoodPinCore
import Foundation

/// `foodpin share LIST --with USER_OR_EMAIL… [--read-only]` shares one of my lists with chosen
/// people; `foodpin share LIST --link [--read-only]` makes a public link. Either prints the URL
/// that `foodpin accept` takes.
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share one of your lists with people, or by a public link; prints the URL to send them."
    )

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The list's name.", valueName: "list"))
    var list: String

    @Option(name: .customLong("with"), parsing: .upToNextOption,
            help: ArgumentHelp("User names or email addresses to share with.", valueName: "user-or-email"))
    var people: [String] = []

    @Flag(help: "Make a public link: anyone with the URL can join.")
    var link = false

    @Flag(name: .customLong("read-only"), help: "They may read the list but not change it.")
    var readOnly = false

    func validate() throws {
        if link && !people.isEmpty { throw ValidationError("Give either --with or --link, not both.") }
        if !link && people.isEmpty { throw ValidationError("Give --with USER_OR_EMAIL… or --link.") }
    }

    mutating func run() async throws {
        let session = CloudSession(options: options)
        defer { session.leaveOpenAtExit() }
        let (lists, seeder) = (session.lists, session.seeder)
        let (list, people, link, readOnly) = (list, people, link, readOnly)
        do {
            let url = try await { () async throws in
                try await seeder?.ensureSchema()
                return link ? try await lists.shareLink(listNamed: list, readOnly: readOnly)
                    : try await lists.share(listNamed: list, with: people, readOnly: readOnly)
            }()
            print(url.absoluteString)
        } catch {
            printFailure("foodpin share", TextSanitizer.line(DiscoverError(error, while: .saveFailed).message))
            throw ExitCode(1)
        }
    }
}
