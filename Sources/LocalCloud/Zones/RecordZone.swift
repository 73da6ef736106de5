/// A zone: a named group of records in one database. Custom zones live in the private database.
public final class RecordZone: Sendable {
    public let zoneID: ID

    public init(zoneID: ID) { self.zoneID = zoneID }
    public convenience init(zoneName: String) { self.init(zoneID: ID(zoneName: zoneName)) }

    public static func `default`() -> RecordZone { RecordZone(zoneID: .default) }
}
