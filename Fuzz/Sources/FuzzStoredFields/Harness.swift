import FuzzDriver
@_spi(Fuzzing) import LocalCloud

@_cdecl("FuzzStoredFields_main")
func main(_ argc: CInt, _ argv: FuzzDriver.Arguments) -> CInt { FuzzDriver.run(argc, argv, testOneInput) }

/// A stored `fields` column as the record store reads it.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.storedFields(FuzzDriver.bytes(data, size))
    return 0
}
