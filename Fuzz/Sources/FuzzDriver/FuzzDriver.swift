/// The libFuzzer entry SwiftPM can link: an executable target's `main` is renamed to `<Target>_main`,
/// so each harness defines that symbol and hands its arguments and its test function to libFuzzer.
///
/// ```swift
/// @_cdecl("FuzzJSON_main")
/// func main(_ argc: CInt, _ argv: FuzzDriver.Arguments) -> CInt { FuzzDriver.run(argc, argv, testOneInput) }
/// ```
public enum FuzzDriver {
    public typealias Arguments = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs libFuzzer's driver (fuzzing, or replaying the files named on the command line).
    public static func run(_ argc: CInt, _ argv: Arguments, _ test: TestOneInput) -> CInt {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments, test)
    }

    /// The input as bytes (libFuzzer may pass a null pointer for the empty input).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<FuzzDriver.Arguments>,
    _ test: FuzzDriver.TestOneInput
) -> CInt
