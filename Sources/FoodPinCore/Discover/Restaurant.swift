import Foundation

/// One restaurant as the Discover screen shows it: a plain value copied out of a `Restaurant` record.
///
/// The image is not part of the list query (its `desiredKeys` leave it out), so
/// `imageFile` is usually `nil` here; thumbnails are fetched per row on their own.
package struct Restaurant: Hashable, Sendable, Identifiable {
    /// The record name, unique in the zone.
    package var id: String
    package var name: String
    package var type: String
    package var location: String
    package var phone: String
    package var description: String
    package var createdAt: Date
    /// The creator's user name, e.g. `alice`.
    package var createdBy: String
    package var imageFile: URL?
    /// Saved while the server was away: waiting in the outbox to upload.
    package var isWaiting = false
    /// Why the server refused the upload, when it did (shown on the row, never dropped).
    package var uploadFailure: String?
    /// An edit made offline that the server refused: the server's version, so that the form can
    /// resolve it (keep theirs, or overwrite with mine). `nil` for everything else.
    package var refusedEdit: RefusedEdit?
    /// The version of the record this copy was read from (its change tag); `nil` when not read from a store.
    package var changeTag: String?
    /// The record's system fields (`Record.encodedSystemFields()`): an edit is saved against the
    /// version shown, so a change made elsewhere meanwhile conflicts instead of being overwritten.
    package var systemFields: Data?

    package init(
        id: String, name: String, type: String = "", location: String = "", phone: String = "",
        description: String = "", createdAt: Date, createdBy: String, imageFile: URL? = nil
    ) {
        self.id = id
        self.name = name
        self.type = type
        self.location = location
        self.phone = phone
        self.description = description
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.imageFile = imageFile
    }
}
