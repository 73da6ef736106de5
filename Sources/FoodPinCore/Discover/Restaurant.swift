import Foundation

/// One restaurant as the Discover screen shows it: a plain value copied out of a `Restaurant` record.
///
/// The image is not part of the list query (its `desiredKeys` leave it out), so
/// `imageFile` is usually `nil` here; thumbnails are fetched per row on their own.
public struct Restaurant: Hashable, Sendable, Identifiable {
    /// The record name, unique in the zone.
    public var id: String
    public var name: String
    public var type: String
    public var location: String
    public var phone: String
    public var description: String
    public var createdAt: Date
    /// The creator's user name, e.g. `alice`.
    public var createdBy: String
    public var imageFile: URL?

    public init(
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
