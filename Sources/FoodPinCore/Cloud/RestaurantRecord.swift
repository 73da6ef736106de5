import Foundation
import LocalCloud

/// The `Restaurant` record type's names, and the mapping from a record to the screen's ``Restaurant``.
///
/// ```swift
/// let restaurant = RestaurantRecord.restaurant(from: record)   // name, type, … createdBy "alice"
/// ```
enum RestaurantRecord {
    static let recordType = "Restaurant"
    static let name = "name"
    static let type = "type"
    static let location = "location"
    static let phone = "phone"
    static let description = "description"
    static let image = "image"

    /// Every field the list shows: everything except the image, which rows fetch on their own.
    static let listKeys = [name, type, location, phone, description]

    /// The Discover query: every restaurant, newest first.
    static func discoverQuery() -> Query {
        let query = Query(recordType: recordType, predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        return query
    }

    /// Copies a fetched record into a plain value. Missing fields read as empty strings.
    static func restaurant(from record: Record) -> Restaurant {
        func string(_ key: String) -> String { record[key] as? String ?? "" }
        var restaurant = Restaurant(
            id: record.recordID.recordName,
            name: string(name), type: string(type), location: string(location),
            phone: string(phone), description: string(description),
            createdAt: record.creationDate ?? Date(timeIntervalSince1970: 0),
            createdBy: userName(fromRecordName: record.creatorUserRecordID?.recordName),
            imageFile: (record[image] as? Asset)?.fileURL)
        restaurant.changeTag = record.recordChangeTag
        restaurant.systemFields = record.encodedSystemFields()
        return restaurant
    }

    /// LocalCloud names user records `_alice` (what `Container.userRecordID()` returns); people say `alice`.
    static func userName(fromRecordName recordName: String?) -> String {
        guard let recordName else { return "" }
        return recordName.hasPrefix("_") ? String(recordName.dropFirst()) : recordName
    }
}
