import ArgumentParser
import Foundation
import LocalCloud
import LocalCloudCLI
import Testing

/// The rule both CLIs print by: no failure line ends at its prefix.
@Suite struct FailureLineTests {
    @Test func everyCloudErrorCodeHasAMessage() {
        for raw in [0, 999] + Array(1...36) {
            for message in ["", " \n ", "The record is gone"] {
                let error = CloudError(CloudError.Code(rawValue: raw), message)
                let text = FailureLine.message(for: error)
                let prefix = "\(error.code.name) (\(raw)): "
                #expect(text.hasPrefix(prefix))
                let said = String(text.dropFirst(prefix.count))
                #expect(!said.allSatisfy { $0.isWhitespace }, "\(raw) \"\(message)\"")
                let line = FailureLine.text("localcloud: error", text)
                #expect(!line.contains("\n"))
            }
        }
    }

    @Test func aBlankMessageIsNeverPrintedBlank() {
        #expect(FailureLine.text("foodpin list", "") == "foodpin list: failed, and the error gave no message")
        #expect(FailureLine.text("foodpin list", " \n\t") == "foodpin list: failed, and the error gave no message")
        #expect(FailureLine.text("foodpin list", "two\nlines") == "foodpin list: two lines")
        #expect(FailureLine.text("", "") == "failed, and the error gave no message")
    }

    @Test func otherErrorsSayWhatTheyAre() {
        struct Silent: Error {}
        struct Blank: Error, CustomStringConvertible { var description: String { " " } }
        #expect(FailureLine.message(for: Silent()) == "Silent()")
        #expect(FailureLine.message(for: Blank()).hasSuffix("Blank with no message"))
        #expect(FailureLine.message(for: ValidationError("--limit must be 0 or more.")) == "--limit must be 0 or more.")
        let posix = CocoaError(.fileWriteOutOfSpace)
        #expect(!FailureLine.message(for: posix).isEmpty)
    }
}
