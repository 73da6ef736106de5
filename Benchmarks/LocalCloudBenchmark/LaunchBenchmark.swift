import Foundation
import LocalCloud
import LocalCloudServer

/// `localcloud-bench remote`'s whole-process launch: `foodpin list --json --limit 50` run as a
/// child process (the `foodpin` binary next to this one, the same build), against the bench
/// server through the environment (`LOCALCLOUD_URL` and the tokens), on the bench's client data
/// directory. Timed from the spawn to the exit, after the 50 rows were printed: process start,
/// dynamic linking, opening the container and its cache, the query (or the refused connection and
/// the cache's answer) and the JSON.
struct LaunchBenchmark {
    let clientData: URL
    let root: URL
    let containerID: String
    let baseURL: URL

    /// The `foodpin` binary built with this one, if there is one.
    var binary: URL? {
        let url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("foodpin")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    /// Milliseconds per launch (one unmeasured first), `nil` without a `foodpin` binary.
    /// - Throws: when a launch fails or prints other than 50 rows.
    func measure(runs: Int) throws -> [Double]? {
        guard let binary else {
            print("  (no foodpin next to localcloud-bench: `swift build --product foodpin` for the whole-process launch)")
            return nil
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LOCALCLOUD_HOME"] = clientData.path
        environment["LOCALCLOUD_CONTAINER"] = containerID
        environment["LOCALCLOUD_USER"] = "alice"
        environment["LOCALCLOUD_URL"] = baseURL.absoluteString
        environment["LOCALCLOUD_API_TOKEN"] = BenchmarkServer.apiToken
        environment["LOCALCLOUD_WEB_AUTH_TOKEN"] = "user-alice"
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        var times: [Double] = []
        for run in 0...runs {
            let process = Process()
            process.executableURL = binary
            process.arguments = ["list", "--json", "--limit", "50"]
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let started = ContinuousClock.now
            try process.run()
            let bytes = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let elapsed = PushBenchmark.milliseconds(ContinuousClock.now - started)
            let rows = (try? JSONSerialization.jsonObject(with: bytes) as? [Any])?.count ?? -1
            guard process.terminationStatus == 0, rows == 50 else {
                throw CloudError(.internalError, "foodpin list exited \(process.terminationStatus) with \(rows) rows")
            }
            if run > 0 { times.append(elapsed) }
        }
        return times
    }
}
