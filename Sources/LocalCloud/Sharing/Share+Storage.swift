import Foundation

extension Share {
    /// How a store keeps `cloudkit.share` records: record types and field names are identifiers
    /// in every store, so the dots become underscores below the sharing layer.
    package static let storedRecordType = "cloudkit_share"

    /// The record a store saves for this share.
    func storedRecord() -> Record {
        var state = snapshot
        state.fields = Dictionary(uniqueKeysWithValues: state.fields.map { (Self.storedKey($0.key), $0.value) })
        state.changed = state.changed.map(Self.storedKey)
        state.invalidKeys = state.invalidKeys.map(Self.storedKey)
        return Record(recordType: Self.storedRecordType, recordID: recordID, state: state)
    }

    /// The share a store's record holds, or `nil` when it is not a stored share.
    package static func fromStored(_ record: Record) -> Share? {
        guard record.recordType == storedRecordType else { return nil }
        var state = record.snapshot
        state.fields = Dictionary(uniqueKeysWithValues: state.fields.map { (publicKey($0.key), $0.value) })
        state.changed = state.changed.map(publicKey)
        return Share(recordID: record.recordID, state: state)
    }

    static func storedKey(_ key: String) -> String {
        key.hasPrefix("cloudkit.") ? "cloudkit_" + key.dropFirst("cloudkit.".count) : key
    }

    static func publicKey(_ key: String) -> String {
        key.hasPrefix("cloudkit_") ? "cloudkit." + key.dropFirst("cloudkit_".count) : key
    }

    /// A new short GUID: 128 random bits, base64url without padding (22 characters).
    static func makeShortGUID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Base64URL.encode(Data(bytes))
    }
}

extension Record {
    /// The same record under another zone ID (the shared database names zones with their owner).
    func relocated(to zoneID: RecordZone.ID) -> Record {
        let id = Record.ID(recordName: recordID.recordName, zoneID: zoneID)
        if let share = self as? Share {
            let moved = Share(recordID: id, state: share.snapshot)
            let viewer = share.transient.withLock { $0 }
            moved.setViewer(viewer.currentUser, urlBase: viewer.urlBase)
            return moved
        }
        return Record(recordType: recordType, recordID: id, state: snapshot)
    }
}
