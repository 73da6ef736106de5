import Foundation
import Testing
@testable import FoodPinCore

@Suite struct RestaurantTests {
    @Test func jsonHasTheDocumentedKeys() throws {
        var restaurant = Restaurant.fixture("abc", "Cafe \"Deadend\"", minutesAgo: 0)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var json = String(decoding: try encoder.encode(restaurant), as: UTF8.self)
        #expect(json == #"{"createdAt":"2027-01-15T08:00:00Z","createdBy":"alice","description":"","imageFile":null,"location":"Hong Kong","name":"Cafe \"Deadend\"","phone":"123","recordName":"abc","type":"Cafe"}"#)
        restaurant.imageFile = URL(fileURLWithPath: "/data/assets/ab/cd.jpg")
        json = String(decoding: try encoder.encode(restaurant), as: UTF8.self)
        #expect(json.contains(#""imageFile":"\/data\/assets\/ab\/cd.jpg""#))
    }
}
