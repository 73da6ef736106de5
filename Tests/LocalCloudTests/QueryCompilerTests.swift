import Foundation
import Testing
@testable import LocalCloud

/// The shared query compiler's pieces that no store test pins down on its own: the bounding box
/// around a distance filter, and numbered placeholders.
@Suite struct QueryCompilerTests {
    /// A point `kilometres` from `center` on `bearing` (degrees), on the stores' sphere.
    private func point(from center: Location, kilometres: Double, bearing: Double) -> Location {
        let angle = kilometres / BoundingBox.earthRadius, theta = bearing * .pi / 180
        let lat1 = center.latitude * .pi / 180, lon1 = center.longitude * .pi / 180
        let lat2 = asin(sin(lat1) * cos(angle) + cos(lat1) * sin(angle) * cos(theta))
        let lon2 = lon1 + atan2(sin(theta) * sin(angle) * cos(lat1), cos(angle) - sin(lat1) * sin(lat2))
        return Location(latitude: lat2 * 180 / .pi, longitude: lon2 * 180 / .pi)
    }

    @Test func theBoxHoldsEveryPointOfTheCircle() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let center = Location(latitude: Double.random(in: -85...85, using: &generator),
                                  longitude: Double.random(in: -180..<180, using: &generator))
            let sizes: [Double] = [0.1, 1, 5, 50, 500, 3000]
            let kilometres = sizes.randomElement(using: &generator) ?? 1
            let box = BoundingBox(center: center, kilometres: kilometres)
            for bearing in stride(from: 0.0, to: 360, by: 7.5) {
                let edge = point(from: center, kilometres: kilometres, bearing: bearing)
                #expect(box.latitudes.contains(edge.latitude), "\(center) \(kilometres) km, bearing \(bearing)")
                if let longitudes = box.longitudes {
                    #expect(longitudes.contains(edge.longitude), "\(center) \(kilometres) km, bearing \(bearing)")
                }
            }
        }
    }

    @Test func theBoxIsTightAndGivesUpLongitudeOnlyWhereItMust() throws {
        // At 60° north a degree of longitude is half as long: twice as many degrees.
        let north = BoundingBox(center: Location(latitude: 60, longitude: 10), kilometres: 10)
        let equator = BoundingBox(center: Location(latitude: 0, longitude: 10), kilometres: 10)
        let northSpread = try #require(north.longitudes).upperBound - 10
        let equatorSpread = try #require(equator.longitudes).upperBound - 10
        #expect(abs(northSpread / equatorSpread - 2) < 0.01)
        #expect(abs(equatorSpread - 10 / 111.195 * 1.01 * 1.01) < 0.001)
        // Across the antimeridian and over a pole, longitude bounds nothing.
        #expect(BoundingBox(center: Location(latitude: 0, longitude: 179.99), kilometres: 5).longitudes == nil)
        #expect(BoundingBox(center: Location(latitude: 89.99, longitude: 0), kilometres: 5).longitudes == nil)
        #expect(BoundingBox(center: Location(latitude: 89.99, longitude: 0), kilometres: 5).latitudes.upperBound == 90)
    }

    @Test func numberedPlaceholdersContinueAfterTheBoundValuesAndSkipLiterals() {
        let fragment = SQLFragment("a = ? AND b = '?' AND c = ? AND d IN (?)", [.text("x"), .json("[1]"), .real(2.5)])
        #expect(fragment.numberedSQL(after: 2) == "a = $3 AND b = '?' AND c = $4::jsonb AND d IN ($5::float8)")
    }

    @Test func everyPlaceholderHasItsValue() throws {
        let request = QueryRequest(
            recordType: "Restaurant",
            predicate: .and([.comparison(.field("type"), .equal, .string("Cafe")),
                             .in(.recordName, [.string("a"), .string("b")]),
                             .distance(.field("place"), Location(latitude: 1, longitude: 2), .less, kilometres: 3),
                             .listContainsAll(.field("tags"), [.string("x"), .string("y")]),
                             .beginsWith(.field("name"), "Ca")]),
            sort: [QuerySortKey(key: "name", ascending: true, location: nil)], limit: 10)
        let dialect = SQLiteDialect(locationIndexes: ["place"], listIndexes: ["tags"])
        var anchored = request
        anchored.anchor = QueryAnchor(values: [.text("M")], rowID: 7)
        for startsFromRowSet in [false, true] {
            let compiled = try QueryCompiler(dialect: dialect).compile(anchored, context: StoreContext(scope: .public, user: "alice"),
                                                                      startsFromRowSet: startsFromRowSet)
            #expect(compiled.text.sql.utf8.filter { $0 == UInt8(ascii: "?") }.count == compiled.text.arguments.count, "\(compiled.text.sql)")
        }
    }
}
