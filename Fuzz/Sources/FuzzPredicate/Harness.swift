import FuzzDriver
@_spi(Fuzzing) import LocalCloud

@_cdecl("FuzzPredicate_main")
func main(_ argc: CInt, _ argv: FuzzDriver.Arguments) -> CInt { FuzzDriver.run(argc, argv, testOneInput) }

/// A predicate format string (`NSPredicate` syntax), parsed, compiled and re-parsed from its format.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.predicate(FuzzDriver.bytes(data, size))
    return 0
}
