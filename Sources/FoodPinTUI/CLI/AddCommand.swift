import ArgumentParser
import FoodPinCore
import Foundation

/// `foodpin add`: saves a restaurant to the public database with the form's validation and image pipeline.
///
/// Exit codes: 0 saved (prints the record name), 2 invalid input (a field or the image),
/// 1 the cloud refused or failed. Every message is one line on stderr.
struct AddCommand: ParsableCommand {
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

    mutating func run() throws {
        let form = RestaurantForm(
            draft: RestaurantDraft(name: name, type: type, location: location, phone: phone ?? "",
                                   description: description ?? "", imagePath: image),
            services: .live)
        let errors = form.validate()
        if !errors.isEmpty {
            let text = errors.sorted { $0.key < $1.key }.map { $0.value.contains($0.key.label) ? $0.value : "\($0.key.label): \($0.value)" }.joined(separator: "; ")
            printError("foodpin add: \(TextSanitizer.line(text))")
            throw ExitCode(2)
        }
        let draft = form.draft
        let session = CloudSession(options: options)
        let (backend, seeder) = (session.backend, session.seeder)
        do {
            let saved = try runBlocking {
                try seeder?.ensureSchema()   // no samples here: see CloudSession
                return try await backend.save(draft)
            }
            print(saved.id)
        } catch {
            let failure = CloudDiscoverBackend.discoverError(error, code: .saveFailed)
            printError("foodpin add: \(TextSanitizer.line(failure.message))")
            throw ExitCode(failure.field != nil ? 2 : 1)
        }
    }
}
