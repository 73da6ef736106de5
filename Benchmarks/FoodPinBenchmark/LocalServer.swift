import Foundation

/// A `localcloud serve` over a data directory, on a free loopback port, for the remote benchmarks:
/// an API token is created for it (the public database is read with that alone).
struct LocalServer {
    let url: URL
    let apiToken: String
    let process: Process

    /// The `localcloud` binary: `LOCALCLOUD_BIN`, else the one next to this benchmark.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["LOCALCLOUD_BIN"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("localcloud")
    }

    static func start(dataDirectory: URL) throws -> LocalServer {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw Bench.Failure(description: "no localcloud at \(binary.path): build it (swift build -c release --product localcloud) or set LOCALCLOUD_BIN")
        }
        let token = try run(["--data-dir", dataDirectory.path, "tokens", "create", "--name", "search-bench"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--data-dir", dataDirectory.path, "--host", "127.0.0.1", "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line it prints once it accepts connections: "listening on http://127.0.0.1:PORT".
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw Bench.Failure(description: "localcloud serve exited before listening") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "listening on "),
              let url = URL(string: String(text[range.upperBound...].prefix { !$0.isWhitespace })) else {
            process.terminate()
            throw Bench.Failure(description: "unexpected localcloud serve output: \(text)")
        }
        return LocalServer(url: url, apiToken: token, process: process)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Bench.Failure(description: "localcloud \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
