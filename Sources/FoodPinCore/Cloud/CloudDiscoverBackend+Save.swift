import Foundation
import LocalCloud

extension CloudDiscoverBackend {
    /// The one save path, for the screen and `foodpin add`: checks the fields
    /// (``RestaurantDraft/fieldErrors()``), scales the image to a temporary JPEG (at most 1024 wide,
    /// quality 80; decoding it is the image's check), saves the `Restaurant` record with it, and
    /// removes the temporary file whether the save worked or not.
    ///
    /// - Throws: ``DiscoverError``: with the form field for invalid input and image errors,
    ///   and with the cloud's reason (permission, quota, asset too large) otherwise.
    package func save(_ draft: RestaurantDraft) async throws -> Restaurant {
        let errors = draft.fieldErrors()
        if let first = errors.keys.min() {
            throw DiscoverError(.saveFailed, RestaurantDraft.message(for: errors), field: first)
        }
        let record = Record(recordType: RestaurantRecord.recordType)
        record[RestaurantRecord.name] = draft.name
        record[RestaurantRecord.type] = draft.type
        record[RestaurantRecord.location] = draft.location
        record[RestaurantRecord.phone] = draft.phone
        record[RestaurantRecord.description] = draft.description

        var temporaryFile: URL?
        defer { if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) } }
        if let path = draft.imagePath {
            let output = temporaryDirectory.appendingPathComponent("foodpin-upload-\(UUID().uuidString).jpg")
            temporaryFile = output
            do {
                _ = try scaler.scale(fileAt: URL(fileURLWithPath: path), to: output)
            } catch {
                throw DiscoverError(error, while: .saveFailed)
            }
            record[RestaurantRecord.image] = Asset(fileURL: output)
        }
        do {
            let saved = try await database.save(record)
            var restaurant = RestaurantRecord.restaurant(from: saved)
            // Saved while the server was away: it waits in the outbox.
            restaurant.isWaiting = container.pendingChanges().contains { $0.recordID == saved.recordID }
            return restaurant
        } catch {
            throw DiscoverError(error, while: .saveFailed)
        }
    }

    /// Deletes a restaurant. Only its creator may, where the schema's roles say so.
    ///
    /// - Throws: ``DiscoverError`` with `.permissionDenied` when the store refuses.
    package func delete(id: String) async throws {
        do {
            try await database.deleteRecord(withID: Record.ID(recordName: id))
        } catch {
            throw DiscoverError(error, while: .deleteFailed)
        }
    }
}
