extension Container {
    /// Development and production data live in separate files, as in CloudKit.
    public enum Environment: String, Sendable, Hashable, Codable, CaseIterable {
        case development
        case production
    }
}
