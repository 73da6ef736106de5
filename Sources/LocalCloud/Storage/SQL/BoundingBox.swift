import Foundation

/// The latitude band and longitude range that hold every point within `kilometres` of a centre,
/// for an index to narrow a distance filter before the exact great-circle test.
///
/// ```swift
/// let box = BoundingBox(center: Location(latitude: 60, longitude: 10), kilometres: 5)
/// // box.latitudes ≈ 59.955…60.045, box.longitudes ≈ 9.91…10.09
/// ```
///
/// The stores' distance functions use a sphere of ``earthRadius``; the box is that sphere's exact
/// bound, widened by ``margin`` so rounding never drops a point on the circle's edge.
package struct BoundingBox: Sendable, Equatable {
    /// The radius, in kilometres, of the stores' distance functions (SQLite's and PostgreSQL's).
    package static let earthRadius = 6371.0
    /// Relative widening of the exact bounds.
    package static let margin = 1.01

    package var latitudes: ClosedRange<Double>
    /// `nil` when the circle holds a pole or crosses the antimeridian, where longitude bounds nothing.
    package var longitudes: ClosedRange<Double>?

    package init(center: Location, kilometres: Double) {
        // The angle the radius spans at the centre of the sphere.
        let angle = max(0, kilometres) / Self.earthRadius * Self.margin
        let degrees = angle * 180 / .pi
        let latitude = min(90, max(-90, center.latitude))
        latitudes = max(-90, latitude - degrees)...min(90, latitude + degrees)
        longitudes = nil
        guard abs(latitude) + degrees < 90, angle < .pi / 2 else { return }
        // The widest longitude on a circle of that angle: sin Δλ = sin(angle) / cos(latitude).
        let ratio = sin(angle) / cos(latitude * .pi / 180)
        guard ratio < 1 else { return }
        let spread = asin(ratio) * 180 / .pi * Self.margin
        let low = center.longitude - spread, high = center.longitude + spread
        if low >= -180, high <= 180 { longitudes = low...high }
    }
}
