import Foundation

/// Orders query results by distance from a point, like `CKLocationSortDescriptor`.
///
/// ```swift
/// query.sortDescriptors = [LocationSortDescriptor(key: "location", relativeLocation: here)]
/// ```
public final class LocationSortDescriptor: SortDescriptor, @unchecked Sendable {
    /// The point distances are measured from; nearest first when ascending.
    public let relativeLocation: Location

    public init(key: String, relativeLocation: Location) {
        self.relativeLocation = relativeLocation
        super.init(key: key, ascending: true)
    }
}
