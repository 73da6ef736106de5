import Testing
@testable import LocalCloud

@Suite struct HexTests {
    @Test func everyByteIsTwoLowercaseDigits() {
        #expect(Hex.encode([UInt8]()) == "")
        #expect(Hex.encode([0x00, 0x0f, 0xab, 0xff]) == "000fabff")
        let all = Hex.encode(Array(0...255).map(UInt8.init))
        #expect(all.utf8.count == 512)
        #expect(all.hasPrefix("000102") && all.hasSuffix("fdfeff"))
        // A prefix of a digest (the response cache's ETag, the schema-name suffix).
        #expect(Hex.encode([0xde, 0xad, 0xbe, 0xef, 0x01][..<4]) == "deadbeef")
    }
}
