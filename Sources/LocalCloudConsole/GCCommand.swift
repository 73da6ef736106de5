import ArgumentParser
import LocalCloud

/// `localcloud gc`: removes asset files that no record refers to.
struct GCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove orphaned asset files (from interrupted saves) and leftover temporary files.",
        discussion: """
            Unreferenced files younger than the grace period are kept: a save in another process \
            may be about to commit a record that points at them. This also runs at startup.
            """
    )
    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("grace-seconds"), help: "Keep unreferenced files younger than this many seconds.")
    var graceSeconds: Int = 600

    func validate() throws {
        guard graceSeconds >= 0 else { throw ValidationError("--grace-seconds must be 0 or more") }
    }

    func run() async throws {
        let session = try await Session(global)
        let report = try await session.container.collectGarbage(gracePeriod: .seconds(graceSeconds))
        if session.json {
            try Output.json(GCReport(
                scannedAssets: report.scannedAssets, removedAssets: report.removedAssets,
                removedTemporaryFiles: report.removedTemporaryFiles,
                keptRecentAssets: report.keptRecentAssets, bytesFreed: report.bytesFreed))
        } else {
            Output.line("gc: \(report)")
        }
    }
}

/// `gc --json`: LocalCloud's GarbageCollectionReport, field for field.
struct GCReport: Encodable {
    var scannedAssets: Int
    var removedAssets: Int
    var removedTemporaryFiles: Int
    var keptRecentAssets: Int
    var bytesFreed: Int64
}
