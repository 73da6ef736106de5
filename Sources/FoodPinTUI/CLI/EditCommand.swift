import ArgumentParser
import FoodPinCore
import Foundation

/// `foodpin edit NAME_OR_RECORD --name … --phone …`: changes a restaurant you added, through the
/// screen's edit path (``CloudDiscoverBackend/update(_:)``): the same record name and creation date,
/// saved against the version just read, so a change made elsewhere meanwhile is refused, not overwritten.
///
/// Exit codes: 0 saved (prints the record name), 2 invalid input (a field, the image, a name
/// several restaurants have), 64 nothing to change, 1 not found, not yours, a conflict, or the cloud failed.
/// Offline the edit waits in the outbox (`queued: NAME (uploads when the server is reachable)`,
/// exit 0) unless `--no-queue` is given (exit 1).
struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change a restaurant you added (its record name and creation date stay)."
    )

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The restaurant: its record name, or its name.", valueName: "name-or-record"))
    var restaurant: String

    @Option(help: "A new name.")
    var name: String?

    @Option(help: "A new kind of food.")
    var type: String?

    @Option(help: "A new location.")
    var location: String?

    @Option(help: "A new phone number: digits, spaces and +-().")
    var phone: String?

    @Option(help: "A new description.")
    var description: String?

    @Option(help: ArgumentHelp("A new photo, replacing the old one; scaled to at most 1024 pixels wide.", valueName: "path"))
    var image: String?

    @Flag(name: .customLong("no-image"), help: "Remove the photo.")
    var noImage = false

    @Flag(name: .customLong("no-queue"), help: "On a server that cannot be reached, fail instead of queueing the edit.")
    var noQueue = false

    func validate() throws {
        if image != nil && noImage { throw ValidationError("--image and --no-image cannot be used together") }
        if [name, type, location, phone, description, image].allSatisfy({ $0 == nil }) && !noImage {
            throw ValidationError("Nothing to change: give --name, --type, --location, --phone, --description, --image or --no-image")
        }
    }

    mutating func run() async throws {
        if image != nil { ImageScaler.prepareForOneShot() }
        let session = CloudSession(options: options, queuesWhenOffline: !noQueue)
        defer { session.leaveOpenAtExit() }
        let backend = session.backend
        let wanted = restaurant
        let changes = Changes(name: name, type: type, location: location, phone: phone, description: description,
                              image: image, removesImage: noImage)
        do {
            let saved = try await { () async throws in
                let found = try await backend.restaurant(namedOrRecord: wanted)
                if let user = backend.currentUser, found.createdBy != user {
                    throw DiscoverError(.permissionDenied,
                                        "Permission Failure: “\(found.name)” was added by \(found.createdBy); only they can edit it")
                }
                return try await backend.update(RestaurantEdit(original: found, draft: changes.draft(from: found)))
            }()
            if session.container.pendingChanges().contains(where: { $0.recordID.recordName == saved.id && $0.failure == nil }) {
                printError("queued: \(TextSanitizer.line(saved.name)) (uploads when the server is reachable)")
            }
            print(saved.id)
        } catch {
            let failure = DiscoverError(error, while: .saveFailed)
            var message = failure.message
            if failure.code == .conflict { message += " since it was read: run foodpin edit again to change that version" }
            printError("foodpin edit: \(TextSanitizer.line(message))")
            throw ExitCode(failure.field != nil ? 2 : 1)
        }
    }
}

/// The options `foodpin edit` was given, apart from the restaurant they apply to.
private struct Changes: Sendable {
    var name, type, location, phone, description, image: String?
    var removesImage: Bool

    /// The restaurant's values with these changes, as the form would hold them (trimmed, `~` expanded).
    func draft(from found: Restaurant) -> RestaurantDraft {
        var draft = RestaurantForm(
            draft: RestaurantDraft(name: name ?? found.name, type: type ?? found.type, location: location ?? found.location,
                                   phone: phone ?? found.phone, description: description ?? found.description, imagePath: image),
            services: .live
        ).draft
        draft.removesImage = removesImage
        return draft
    }
}
