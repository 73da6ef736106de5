import Testing
@testable import FoodPinCore

@Test func packageBuilds() { #expect(Bool(true)) }
