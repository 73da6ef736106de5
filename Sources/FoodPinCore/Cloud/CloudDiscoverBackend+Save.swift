import Foundation
#if canImport(Glibc)
import Glibc
#endif
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
        try await save(draft, alongside: {})
    }

    /// ``save(_:)``, running `prepare` while the image scales: `foodpin add` opens the store and
    /// checks the schema there, so a one-shot command pays for the slower of the two, not both.
    ///
    /// `prepare`'s error is thrown before the image's, as if it had run first.
    package func save(_ draft: RestaurantDraft, alongside prepare: @Sendable () async throws -> Void) async throws -> Restaurant {
        let errors = draft.fieldErrors()
        if let first = errors.keys.min() {
            throw DiscoverError(.saveFailed, RestaurantDraft.message(for: errors), field: first)
        }
        let record = Record(recordType: RestaurantRecord.recordType)
        draft.writeFields(to: record)

        var temporaryFile: URL?
        defer { if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) } }
        if let path = draft.imagePath {
            let output = temporaryDirectory.appendingPathComponent("foodpin-upload-\(UUID().uuidString).jpg")
            temporaryFile = output
            async let scaled = Result { () throws(ImageError) in try self.writeScaledImage(at: path, to: output) }
            try await prepare()
            do {
                try await scaled.get()
            } catch {
                throw DiscoverError(error, while: .saveFailed)
            }
            record[RestaurantRecord.image] = Asset(fileURL: output)
        } else {
            try await prepare()
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

    /// Saves an edit over the restaurant's record: the same record name, creator and creation date,
    /// sent with the change tag of the version the edit was made against (``RestaurantEdit/systemFields``;
    /// without them, the version read now). A new photo is scaled as for an add and replaces the old
    /// one (whose asset, no longer referred to, is garbage collected by the store); `removesImage`
    /// removes it. Offline, the edit waits in the outbox like an add.
    ///
    /// - Throws: ``DiscoverError``: `.conflict` with the server's version when it changed since,
    ///   field errors as for ``save(_:)``, and the cloud's reason (permission: only the creator may edit).
    package func update(_ edit: RestaurantEdit) async throws -> Restaurant {
        let draft = edit.draft
        let errors = draft.fieldErrors()
        if let first = errors.keys.min() {
            throw DiscoverError(.saveFailed, RestaurantDraft.message(for: errors), field: first)
        }
        let record: Record
        do {
            if let systemFields = edit.systemFields {
                record = try Record(systemFields: systemFields)
            } else {
                let id = Record.ID(recordName: edit.id)
                guard let result = try await database.records(for: [id], desiredKeys: [])[id] else {
                    throw CloudError(.unknownItem, "Record not found: \(edit.id)", recordID: id)
                }
                record = try result.get()
            }
        } catch {
            throw DiscoverError(error, while: .saveFailed)
        }
        // Every field the list shows is written, so a queued edit shows whole while it waits.
        draft.writeFields(to: record)

        var temporaryFile: URL?
        defer { if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) } }
        if let path = draft.imagePath {
            let output = temporaryDirectory.appendingPathComponent("foodpin-upload-\(UUID().uuidString).jpg")
            temporaryFile = output
            do {
                try writeScaledImage(at: path, to: output)
            } catch {
                throw DiscoverError(error, while: .saveFailed)
            }
            record[RestaurantRecord.image] = Asset(fileURL: output)
        } else if draft.removesImage {
            record[RestaurantRecord.image] = nil
        }
        do {
            let saved = try await database.save(record)
            // This save supersedes an earlier edit of the record that the server refused at upload
            // (the form resolving it saves over the server's version): that one is dropped. The
            // save itself is done; if dropping fails, the row still shows the old refusal, marked.
            _ = try? container.discardRefusedChanges(of: saved.recordID)
            var restaurant = RestaurantRecord.restaurant(from: saved)
            restaurant.isWaiting = container.pendingChanges().contains { $0.recordID == saved.recordID && $0.failure == nil }
            return restaurant
        } catch {
            throw DiscoverError(error, while: .saveFailed)
        }
    }

    /// Scales the photo and writes the JPEG to `output`, a fresh name only this save uses.
    ///
    /// A plain `write(2)`, with no fsync: the save copies the file into the asset store, which
    /// syncs its own copy before the commit, and then this one is removed. (Foundation's
    /// `Data.write` syncs every file it writes.)
    private func writeScaledImage(at path: String, to output: URL) throws(ImageError) {
        let jpeg = try scaler.scale(fileAt: URL(fileURLWithPath: path))
        let written = jpeg.withUnsafeBytes { bytes in Self.writeNew(output.path, bytes) }
        if let failure = written {
            throw ImageError(.writeFailed, "Cannot write \(output.lastPathComponent): \(failure)", path: output.path)
        }
    }

    /// Creates `path` (it must not exist) holding `bytes`; the reason when it cannot.
    private static func writeNew(_ path: String, _ bytes: UnsafeRawBufferPointer) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let count = write(fd, base + offset, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                return reason
            }
            offset += count
        }
        return close(fd) == 0 ? nil : String(cString: strerror(errno))
    }

    /// Drops an edit the server refused at upload, once the user kept the server's version.
    package func discardRefusedEdit(id: String) async throws {
        do {
            try container.discardRefusedChanges(of: Record.ID(recordName: id))
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

extension RestaurantDraft {
    /// The draft's text fields onto `record`, for an add and an edit alike (the image is the caller's).
    func writeFields(to record: Record) {
        record[RestaurantRecord.name] = name
        record[RestaurantRecord.type] = type
        record[RestaurantRecord.location] = location
        record[RestaurantRecord.phone] = phone
        record[RestaurantRecord.description] = description
    }
}
