import Foundation
import Synchronization

/// A record: a typed bag of fields with system metadata, like `CKRecord`.
///
/// ```swift
/// let record = Record(recordType: "Restaurant")
/// record["name"] = "Cafe Deadend"
/// let saved = try await container.publicCloudDatabase.save(record)
/// ```
///
/// A record is a reference type shared across tasks, so its state sits behind a `Mutex` (hence
/// `@unchecked Sendable`). It is not final: ``Share`` subclasses it, as `CKShare` does `CKRecord`.
public class Record: @unchecked Sendable, CustomStringConvertible {
    public let recordID: ID
    public let recordType: String

    /// Everything that can change after creation, guarded by ``state``.
    package struct State: Sendable {
        package var fields: [String: FieldValue] = [:]
        package var changed: [String] = []
        /// Keys given a value that is not a storable `RecordValue`; saving reports them.
        package var invalidKeys: [String] = []
        package var creationDate: Date?
        package var modificationDate: Date?
        package var creatorUserRecordID: ID?
        package var lastModifiedUserRecordID: ID?
        package var recordChangeTag: String?

        package init() {}
    }

    let state: Mutex<State>

    public convenience init(recordType: String) {
        self.init(recordType: recordType, recordID: ID())
    }

    public init(recordType: String, recordID: ID) {
        self.recordType = recordType
        self.recordID = recordID
        state = Mutex(State())
    }

    /// A record in the zone `zoneID`, with a generated name.
    public convenience init(recordType: String, zoneID: RecordZone.ID) {
        self.init(recordType: recordType, recordID: ID(zoneID: zoneID))
    }

    package init(recordType: String, recordID: ID, state: State) {
        self.recordType = recordType
        self.recordID = recordID
        self.state = Mutex(state)
    }

    // MARK: System fields

    /// When the record was first saved; `nil` until then.
    public var creationDate: Date? { state.withLock { $0.creationDate } }
    /// When the record was last saved; `nil` until the first save.
    public var modificationDate: Date? { state.withLock { $0.modificationDate } }
    /// The user record ID (`_<user>`) of the user who created the record.
    public var creatorUserRecordID: ID? { state.withLock { $0.creatorUserRecordID } }
    /// The user record ID (`_<user>`) of the user who last saved the record.
    public var lastModifiedUserRecordID: ID? { state.withLock { $0.lastModifiedUserRecordID } }
    /// The server's version tag; a save with a stale tag conflicts.
    public var recordChangeTag: String? { state.withLock { $0.recordChangeTag } }

    // MARK: Fields

    /// Reads or writes a field. Setting `nil` removes it.
    public subscript(key: String) -> (any RecordValue)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    public func object(forKey key: String) -> (any RecordValue)? {
        state.withLock { $0.fields[key] }.map { $0.recordValue }
    }

    public func setObject(_ object: (any RecordValue)?, forKey key: String) {
        let converted = object.map { FieldValue(recordValue: $0) }
        state.withLock { state in
            switch converted {
            case nil:
                state.fields[key] = nil
                state.invalidKeys.removeAll { $0 == key }
            case .some(.some(let value)):
                state.fields[key] = value
                state.invalidKeys.removeAll { $0 == key }
            case .some(.none):
                state.fields[key] = nil
                if !state.invalidKeys.contains(key) { state.invalidKeys.append(key) }
            }
            if !state.changed.contains(key) { state.changed.append(key) }
        }
    }

    /// Key-value coding spelling, as CloudKit code often uses it.
    public func value(forKey key: String) -> Any? { object(forKey: key) }

    /// Key-value coding spelling; a value that is not a ``RecordValue`` is reported on save.
    public func setValue(_ value: Any?, forKey key: String) {
        switch value {
        case nil: setObject(nil, forKey: key)
        case let value as any RecordValue: setObject(value, forKey: key)
        default:
            state.withLock { state in
                state.fields[key] = nil
                if !state.invalidKeys.contains(key) { state.invalidKeys.append(key) }
                if !state.changed.contains(key) { state.changed.append(key) }
            }
        }
    }

    /// The keys that have values, sorted.
    public func allKeys() -> [String] { state.withLock { $0.fields.keys.filter { !Record.sharingKeys.contains($0) }.sorted() } }

    /// The keys set since the record was created locally or last fetched, in the order they were set.
    public func changedKeys() -> [String] { state.withLock { $0.changed } }

    public var description: String {
        let (keys, tag) = state.withLock { ($0.fields.keys.sorted(), $0.recordChangeTag) }
        return "<Record \(recordType) \(recordID.recordName) tag=\(tag ?? "-") keys=\(keys)>"
    }

    // MARK: Internal

    var fieldValues: [String: FieldValue] { state.withLock { $0.fields } }
    package var snapshot: State { state.withLock { $0 } }
}
