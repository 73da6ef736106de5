import FuzzDriver
@_spi(Fuzzing) import LocalCloud

@_cdecl("FuzzJSON_main")
func main(_ argc: CInt, _ argv: FuzzDriver.Arguments) -> CInt { FuzzDriver.run(argc, argv, testOneInput) }

/// A CloudKit Web Services JSON document, parsed and round-tripped.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.json(FuzzDriver.bytes(data, size))
    return 0
}
