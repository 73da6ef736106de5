import FuzzDriver
@_spi(Fuzzing) import LocalCloud
@_spi(Fuzzing) import LocalCloudServer

@_cdecl("FuzzContinuationMarker_main")
func main(_ argc: CInt, _ argv: FuzzDriver.Arguments) -> CInt { FuzzDriver.run(argc, argv, testOneInput) }

/// A `continuationMarker` as `records/query` reads one, the cursor it names compiled as the next page would be.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if let cursor = RequestBodyDecoding.continuationMarker(String(decoding: FuzzDriver.bytes(data, size), as: UTF8.self)) {
        FuzzTargets.queryCursor(cursor)
    }
    return 0
}
