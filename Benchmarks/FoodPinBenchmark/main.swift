import Foundation

// foodpin-bench SUBCOMMAND [ARGS]: one benchmark per subcommand, so others can be added
// next to these as a new case and a new `<Name>Benchmark.swift` file.
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: foodpin-bench scale [FILE] [--runs N]    ImageScaler vs vipsthumbnail vs ImageMagick, + thumbnail rows
           foodpin-bench render FILE [COLS ROWS] [256|16|8|none]   print a thumbnail with ANSI colours
           foodpin-bench discover [--rows N] [--frames N] [--data-dir PATH]   Discover screen: first rows, thumbnails, frames, memory
           foodpin-bench search [--rows N] [--rounds N] [--data-dir PATH] [--remote]   / search: keystroke → results drawn (--remote: through localcloud serve)
           foodpin-bench images [--rounds N]    a screen of thumbnails per image mode: render time, bytes written
    """

do {
    switch arguments.first {
    case "scale":
        try ScaleBenchmark(arguments: Array(arguments.dropFirst())).run()
    case "render":
        try RenderCommand(arguments: Array(arguments.dropFirst())).run()
    case "discover":
        try await DiscoverBenchmark(arguments: Array(arguments.dropFirst())).run()
    case "search":
        try await SearchBenchmark(arguments: Array(arguments.dropFirst())).run()
    case "images":
        try ImagesBenchmark(arguments: Array(arguments.dropFirst())).run()
    case "-h", "--help", "help":
        print(usage)
    default:
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("foodpin-bench: \(error)\n".utf8))
    exit(1)
}
