import FuzzDriver
@_spi(Fuzzing) import LocalCloud

@_cdecl("FuzzServerSentEvents_main")
func main(_ argc: CInt, _ argv: FuzzDriver.Arguments) -> CInt { FuzzDriver.run(argc, argv, testOneInput) }

/// A `text/event-stream` as the remote store reads it from a server.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.serverSentEvents(FuzzDriver.bytes(data, size))
    return 0
}
