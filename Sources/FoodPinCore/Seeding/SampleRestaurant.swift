import Foundation

/// One entry of `Assets/Restaurants/restaurants.json`: a sample restaurant and its picture's file name.
package struct SampleRestaurant: Hashable, Sendable, Decodable {
    package var name: String
    package var type: String
    package var location: String
    package var phone: String
    package var description: String
    /// The picture's file name, next to `restaurants.json`.
    package var image: String

    /// The record name the sample is saved under, the same in every process: `sample-<image stem>`.
    ///
    /// Deterministic names are what make seeding race-safe: a second seeder's save of the
    /// same name fails with `serverRecordChanged` instead of adding a copy.
    package var recordName: String {
        let stem = (image as NSString).deletingPathExtension
        let slug = stem.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }
        return "sample-" + String(slug)
    }
}
