import ArgumentParser
import FoodPinCore
import Foundation

/// `foodpin add`: saves a restaurant to the public database through the screen's save path
/// (``CloudDiscoverBackend/save(_:)``: one check of the fields, one decode of the image).
///
/// Exit codes: 0 saved (prints the record name), 2 invalid input (a field or the image),
/// 1 the cloud refused or failed. Every message is one line on stderr. On a server that cannot be
/// reached the add waits in the outbox (`queued: NAME (uploads when the server is reachable)`,
/// exit 0) unless `--no-queue` is given (exit 1).
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a restaurant to the public database."
    )

    @OptionGroup var options: GlobalOptions

    @Option(help: "The restaurant's name.")
    var name: String

    @Option(help: "The kind of food, e.g. Thai.")
    var type: String

    @Option(help: "Where it is.")
    var location: String

    @Option(help: "A phone number: digits, spaces and +-().")
    var phone: String?

    @Option(help: "A longer description.")
    var description: String?

    @Option(help: ArgumentHelp("A photo; scaled to at most 1024 pixels wide.", valueName: "path"))
    var image: String?

    @Flag(name: .customLong("no-queue"), help: "On a server that cannot be reached, fail instead of queueing the add.")
    var noQueue = false

    mutating func run() async throws {
        if image != nil { ImageScaler.prepareForOneShot() }   // libvips loads while the store opens
        // What the form would hold: trimmed, `~` expanded, at most each field's length.
        let draft = RestaurantForm(
            draft: RestaurantDraft(name: name, type: type, location: location, phone: phone ?? "",
                                   description: description ?? "", imagePath: image),
            services: .live
        ).draft
        let session = CloudSession(options: options, queuesWhenOffline: !noQueue)
        // The store stays open to the end of the process: see CloudSession.leaveOpenAtExit.
        defer { session.leaveOpenAtExit() }
        let (backend, seeder) = (session.backend, session.seeder)
        do {
            // The store opens and the schema is checked while the image scales.
            let saved = try await { () async throws in
                try await backend.save(draft, alongside: { try await seeder?.ensureSchema() })   // no samples here: see CloudSession
            }()
            if session.container.pendingChanges().contains(where: { $0.recordID.recordName == saved.id }) {
                printError("queued: \(TextSanitizer.line(saved.name)) (uploads when the server is reachable)")
            }
            print(saved.id)
        } catch {
            let failure = DiscoverError(error, while: .saveFailed)
            printFailure("foodpin add", TextSanitizer.line(failure.message))
            throw ExitCode(failure.field != nil ? 2 : 1)
        }
    }
}
