import FuzzDriver
@_spi(Fuzzing) import LocalCloud

@_cdecl("FuzzSchemaText_main")
func main(_ argc: CInt, _ argv: FuzzDriver.Arguments) -> CInt { FuzzDriver.run(argc, argv, testOneInput) }

/// A `.ckdb` schema text.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.schemaText(FuzzDriver.bytes(data, size))
    return 0
}
