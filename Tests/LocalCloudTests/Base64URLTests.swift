import Foundation
import Testing
@testable import LocalCloud

@Suite struct Base64URLTests {
    @Test func encodesRFC4648VectorsWithoutPadding() {
        // RFC 4648 §10, padding dropped; then the two characters that differ from plain base64.
        #expect(Base64URL.encode([UInt8]()) == "")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode(Data([0xfb, 0xff])) == "-_8")
        #expect(Base64URL.encode([0xfb, 0xef, 0xbe]) == "----")
        #expect(Base64URL.encode([0xff, 0xff, 0xff]) == "____")
    }

    @Test func decodesPaddedAndUnpaddedText() {
        #expect(Base64URL.decode("-_8") == Data([0xfb, 0xff]))
        #expect(Base64URL.decode("-_8=") == Data([0xfb, 0xff]))
        #expect(Base64URL.decode("Zm9vYmE") == Data("fooba".utf8))
        #expect(Base64URL.decode("") == Data())
        #expect(Base64URL.decode(Substring("Zg")) == Data("f".utf8))
    }

    @Test func refusesTextThatIsNotBase64() {
        #expect(Base64URL.decode("***") == nil)
        #expect(Base64URL.decode("Z") == nil)
        #expect(Base64URL.decode("Zm9v YmFy") == nil)
    }

    @Test func roundTripsRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text).map(Array.init) == bytes)
        }
    }

    @Test func encodesAsFoundationsBase64WithTheURLAlphabet() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation)
        }
    }
}
