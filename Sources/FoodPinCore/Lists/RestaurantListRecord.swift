import Foundation
import LocalCloud

/// The record types behind lists: a `RestaurantList` (the root) and its `ListEntry` records,
/// whose `parent` is the list, so that a hierarchy share of the list covers its entries.
///
/// An entry copies what the row shows (name, type, location, a thumbnail) and keeps the Discover
/// record's name, so a list still shows after the restaurant is deleted from Discover.
package enum RestaurantListRecord {
    /// The custom zone of the private database that holds lists (CloudKit shares only custom zones).
    package static let zoneName = "Lists"
    package static let listType = "RestaurantList"
    package static let entryType = "ListEntry"
    static let name = "name"
    static let type = "type"
    static let location = "location"
    /// The Discover record's name.
    static let restaurant = "restaurant"
    static let thumbnail = "thumbnail"
    /// The list, as a reference (queried); `parent` says the same for sharing.
    static let list = "list"

    static let entryKeys = [name, type, location, restaurant, list]

    /// Thumbnails are kept small: a row shows 8 columns, a detail view more, never a full photo.
    static let thumbnailWidth = 320

    /// An entry's thumbnail key: names the database and zone, so the loader can find its asset.
    ///
    /// ```swift
    /// RestaurantListRecord.thumbnailID(entry: "E1", in: ref)   // "list-entry\u{1F}…"
    /// ```
    package static func thumbnailID(entry: String, in ref: RestaurantListRef) -> String {
        [thumbnailPrefix, ref.ownerName ?? "", ref.zoneName, entry].joined(separator: separator)
    }

    /// The parts of a ``thumbnailID(entry:in:)``, or `nil` for a Discover record name.
    package static func parseThumbnailID(_ id: String) -> (entry: String, ref: RestaurantListRef)? {
        let parts = id.split(separator: Character(separator), omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == thumbnailPrefix else { return nil }
        return (parts[3], RestaurantListRef(recordName: "", ownerName: parts[1].isEmpty ? nil : parts[1], zoneName: parts[2]))
    }

    private static let thumbnailPrefix = "list-entry"
    /// The unit separator: never in a record name the app makes.
    private static let separator = "\u{1F}"

    /// An entry as a row: `createdBy` is who added it, `createdAt` when.
    static func entry(from record: Record) -> Restaurant {
        func string(_ key: String) -> String { record[key] as? String ?? "" }
        var row = Restaurant(
            id: record.recordID.recordName, name: string(name), type: string(type), location: string(location),
            createdAt: record.creationDate ?? Date(timeIntervalSince1970: 0),
            createdBy: RestaurantRecord.userName(fromRecordName: record.creatorUserRecordID?.recordName))
        row.changeTag = record.recordChangeTag
        return row
    }
}
