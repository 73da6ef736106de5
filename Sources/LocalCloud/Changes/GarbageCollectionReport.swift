/// What one garbage collection of a container's asset files found and removed.
public struct GarbageCollectionReport: Sendable, Hashable, CustomStringConvertible {
    /// Asset files looked at.
    public var scannedAssets = 0
    /// Files no record refers to, older than the grace period: removed.
    public var removedAssets = 0
    /// Partly written temporary files (a save that crashed mid-copy): removed.
    public var removedTemporaryFiles = 0
    /// Unreferenced files younger than the grace period: kept, a save may be about to commit them.
    public var keptRecentAssets = 0
    public var bytesFreed: Int64 = 0

    public init() {}

    public var description: String {
        "scanned \(scannedAssets) assets, removed \(removedAssets) orphans and \(removedTemporaryFiles) temporary files "
            + "(\(bytesFreed) bytes), kept \(keptRecentAssets) recent unreferenced"
    }
}
