import ArgumentParser
import Foundation
import LocalCloud

struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Wipe the development environment: records, assets, zones and schema.",
        discussion: """
            Like "Reset Development Environment" in the CloudKit Console: development only, and it asks first. \
            Without --yes and without a terminal to ask on, it refuses.
            """
    )
    @OptionGroup var global: GlobalOptions
    @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

    func run() async throws {
        guard global.cloud.configuration().environment == .development else {
            throw CloudError(.permissionFailure, "reset wipes development only; production data cannot be reset")
        }
        let session = try await Session(global)
        if !yes {
            guard isatty(STDIN_FILENO) == 1, ProcessInfo.processInfo.environment["CI"] == nil else {
                throw ConsoleFailure(message: "refusing to reset without confirmation: pass --yes")
            }
            print("Wipe every record, asset, zone and the schema of \(session.containerIdentifier) (development)? Type 'yes': ", terminator: "")
            guard readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                throw ConsoleFailure(message: "reset cancelled")
            }
        }
        try await session.resetDevelopment()
        Output.line("Reset the development environment of \(session.containerIdentifier)")
    }
}
