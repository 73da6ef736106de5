import Testing
@testable import LocalCloud

struct CloudErrorCodeTests {
    /// `catch CloudError.Code.x` matches by code, as GRDB's `catch DatabaseError.SQLITE_BUSY` does.
    @Test func catchMatchesByCode() {
        func outcome(_ error: any Error) -> String {
            do { throw error }
            catch CloudError.Code.serverRecordChanged { return "conflict" }
            catch CloudError.Code.unknownItem { return "missing" }
            catch { return "other" }
        }
        #expect(outcome(CloudError(.serverRecordChanged, "changed")) == "conflict")
        #expect(outcome(CloudError(.unknownItem, "gone")) == "missing")
        #expect(outcome(CloudError(.networkFailure, "down")) == "other")
        #expect(outcome(CancellationError()) == "other")
    }

    /// Every code has its CKError name, and an unknown raw value still prints.
    @Test func everyCodeHasItsName() {
        #expect(CloudError.Code.serverRecordChanged.name == "serverRecordChanged")
        #expect(CloudError.Code.accountTemporarilyUnavailable.description == "accountTemporarilyUnavailable (36)")
        let names = (1...36).map { CloudError.Code(rawValue: $0).name }
        #expect(Set(names).count == 36)
        #expect(!names.contains { $0.hasPrefix("code") })
        #expect(CloudError.Code(rawValue: 999).name == "code999")
    }
}
