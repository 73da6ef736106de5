import Foundation
import LocalCloud

extension CloudDiscoverBackend {
    /// Validates the draft as the form does, scales the image to a temporary JPEG (at most
    /// 1024 wide, quality 80), saves the `Restaurant` record with it, and removes the temporary
    /// file whether the save worked or not.
    ///
    /// - Throws: ``DiscoverError``: with the form field for invalid input and image errors,
    ///   and with the cloud's reason (permission, quota, asset too large) otherwise.
    public func save(_ draft: RestaurantDraft) async throws -> Restaurant {
        if let (field, message) = RestaurantForm(draft: draft, services: formServices).validate().min(by: { $0.key < $1.key }) {
            throw DiscoverError(field == .image ? .invalidImage : .saveFailed, message, field: field)
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
                throw Self.discoverError(error, code: .saveFailed)
            }
            record[RestaurantRecord.image] = Asset(fileURL: output)
        }
        do {
            let saved = try await database.save(record)
            return RestaurantRecord.restaurant(from: saved)
        } catch {
            throw Self.discoverError(error, code: .saveFailed)
        }
    }

    /// Deletes a restaurant. Only its creator may, where the schema's roles say so.
    ///
    /// - Throws: ``DiscoverError`` with `.permissionDenied` when the store refuses.
    public func delete(id: String) async throws {
        do {
            try await database.deleteRecord(withID: Record.ID(recordName: id))
        } catch {
            throw Self.discoverError(error, code: .deleteFailed)
        }
    }

    /// The screen's words for a store or image pipeline failure.
    ///
    /// Image errors belong to the form's image field; an asset over the store's size limit
    /// does too, since a smaller picture fixes it.
    public static func discoverError(_ error: any Error, code: DiscoverError.Code) -> DiscoverError {
        switch error {
        case let error as DiscoverError:
            return error
        case let error as ImageError:
            return DiscoverError(.invalidImage, error.message, field: .image)
        case let error as CloudError:
            switch error.code {
            case .permissionFailure:
                return DiscoverError(.permissionDenied, "Permission Failure: \(error.message)")
            case .notAuthenticated:
                return DiscoverError(.permissionDenied, "Not signed in: \(error.message)")
            case .unknownItem:
                return DiscoverError(.notFound, error.message)
            case .limitExceeded where error.message.hasPrefix("Asset"), .assetFileNotFound:
                return DiscoverError(code, error.message, field: .image)
            default:
                return DiscoverError(code, "\(error.code.name): \(error.message)")
            }
        default:
            return DiscoverError(code, String(describing: error))
        }
    }
}
