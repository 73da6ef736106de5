/// What `localcloud status` reports.
package struct ContainerStatistics: Sendable {
    package var dataDirectory: String
    package var databaseFile: String
    package var assetsDirectory: String
    package var schemaVersion = 0
    /// (database, record type, count)
    package var recordCounts: [(database: String, recordType: String, count: Int)] = []
    package var zoneCount = 0
    package var databaseBytes: Int64 = 0
    package var assetCount = 0
    package var assetBytes: Int64 = 0

    package init(dataDirectory: String, databaseFile: String, assetsDirectory: String) {
        self.dataDirectory = dataDirectory
        self.databaseFile = databaseFile
        self.assetsDirectory = assetsDirectory
    }
}
