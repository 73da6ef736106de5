#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import LocalCloudServer

@Suite struct DescriptorLimitTests {
    @Test func theSoftLimitIsRaisedToTheHardLimit() throws {
        let raised = try #require(DescriptorLimit.raiseToHardLimit())
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        #expect(UInt64(limit.rlim_cur) == UInt64(limit.rlim_max), "the soft limit is the hard one now")
        #expect(raised.to == UInt64(limit.rlim_cur))
        #expect(raised.from <= raised.to)
    }
}
