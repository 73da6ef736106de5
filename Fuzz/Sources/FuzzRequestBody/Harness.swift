import FuzzDriver
@_spi(Fuzzing) import LocalCloud
@_spi(Fuzzing) import LocalCloudServer

@_cdecl("FuzzRequestBody_main")
func main(_ argc: CInt, _ argv: FuzzDriver.Arguments) -> CInt { FuzzDriver.run(argc, argv, testOneInput) }

/// One request body, decoded as the body of every database operation the server has.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    for operation in RequestBodyDecoding.operations {
        _ = try? RequestBodyDecoding.decode(bytes, operation: operation)
    }
    return 0
}
