import Foundation
import LocalCloud
import Testing
@testable import FoodPinCore

/// Every error `foodpin` can print says what happened: `foodpin list --json --limit 100000` once
/// printed `foodpin list: ` and nothing else, because a server that could not be reached
/// (`networkUnavailable`) became an `.offline` error with an empty message.
@Suite struct EmptyErrorTests {
    /// CloudKit's codes, the ones LocalCloud names and a few it does not.
    static let cloudCodes = (0...40).map(CloudError.Code.init(rawValue:)) + [CloudError.Code(rawValue: 999)]
    static let actions: [DiscoverError.Code] = [.loadFailed, .saveFailed, .deleteFailed]

    @Test func anUnreachableServerKeepsItsReason() {
        let down = CloudError(.networkUnavailable, "Cannot reach 127.0.0.1:9: Couldn't connect to server")
        let error = DiscoverError(down, while: .loadFailed)
        #expect(error.message == "Cannot reach 127.0.0.1:9: Couldn't connect to server", "it was empty")
        #expect(error.code == .offline)
        #expect(error.banner(couldNot: "load restaurants", cached: 3) == "offline · 3 cached", "the banner stays short")
    }

    @Test func everyCloudErrorCodeSaysSomething() {
        for code in Self.cloudCodes {
            for message in ["", "   ", "Something specific"] {
                for action in Self.actions {
                    let error = DiscoverError(CloudError(code, message), while: action)
                    #expect(!error.message.allSatisfy { $0.isWhitespace }, "\(code) with \"\(message)\" while \(action.rawValue)")
                    #expect(!error.banner(couldNot: "load restaurants", cached: 0).isEmpty)
                }
            }
        }
    }

    @Test func everyDiscoverErrorCodeSaysSomething() {
        let codes: [DiscoverError.Code] = [.loadFailed, .saveFailed, .deleteFailed, .permissionDenied, .invalidImage,
                                           .notFound, .signedOut, .offline, DiscoverError.Code(rawValue: "somethingNew")]
        for code in codes {
            #expect(!DiscoverError(code, "").message.isEmpty, "\(code.rawValue)")
            #expect(DiscoverError(code, "kept").message == "kept")
        }
    }

    @Test func anErrorWithABlankDescriptionNamesItsType() {
        struct Silent: Error, CustomStringConvertible { var description: String { "" } }
        let error = DiscoverError(Silent(), while: .loadFailed)
        #expect(error.message.contains("Silent"), "\(error.message)")
        let image = DiscoverError(ImageError(.corrupt, ""), while: .saveFailed)
        #expect(!image.message.isEmpty)
    }
}

extension EmptyErrorTests {
    /// The local disk (quotaExceeded) or the server's (QUOTA_EXCEEDED, read back as limitExceeded):
    /// the message is the plain sentence, not a code name.
    @Test func aFullDiskSaysSoPlainly() {
        for code in [CloudError.Code.quotaExceeded, .limitExceeded] {
            let error = DiscoverError(CloudError(code, "The disk is full: could not write the record store."), while: .saveFailed)
            #expect(error.message == "The disk is full: could not write the record store.")
            #expect(error.field == nil, "the form keeps its fields; no one field is to blame")
        }
    }
}
