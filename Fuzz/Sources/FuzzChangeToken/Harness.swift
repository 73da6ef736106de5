import FuzzDriver
@_spi(Fuzzing) import LocalCloud
@_spi(Fuzzing) import LocalCloudServer

@_cdecl("FuzzChangeToken_main")
func main(_ argc: CInt, _ argv: FuzzDriver.Arguments) -> CInt { FuzzDriver.run(argc, argv, testOneInput) }

/// A change token: its bytes as `ServerChangeToken(data:)` reads them, and as a `syncToken` on the wire.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    FuzzTargets.changeToken(bytes)
    if let token = try? RequestBodyDecoding.syncToken(String(decoding: bytes, as: UTF8.self)) {
        FuzzTargets.changeToken(Array(token.data))
    }
    return 0
}
