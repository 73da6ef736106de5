import Testing
@testable import LocalCloud

@Test func packageBuilds() { #expect(Bool(true)) }
