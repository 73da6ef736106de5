import ArgumentParser
import FoodPinCore
import Foundation

/// `foodpin accept URL`: joins a list someone shared; it then shows under "Shared with me".
struct AcceptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a shared list's URL."
    )

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The URL from foodpin share.", valueName: "url"))
    var url: String

    mutating func run() async throws {
        let session = CloudSession(options: options)
        defer { session.leaveOpenAtExit() }
        let lists = session.lists
        guard let shareURL = URL(string: url.trimmingCharacters(in: .whitespaces)), shareURL.scheme != nil else {
            printFailure("foodpin accept", "Not a share URL: \(TextSanitizer.line(String(url.prefix(200))))")
            throw ExitCode(1)
        }
        do {
            let name = try await lists.accept(shareURL)
            print("accepted \(TextSanitizer.line(name))")
        } catch {
            printFailure("foodpin accept", TextSanitizer.line(DiscoverError(error, while: .loadFailed).message))
            throw ExitCode(1)
        }
    }
}
