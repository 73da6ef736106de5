import Foundation
import Synchronization

/// A share of records with chosen people, like `CKShare`: a record of type `cloudkit.share`.
///
/// ```swift
/// let list = Record(recordType: "List", zoneID: zone.zoneID)
/// let share = Share(rootRecord: list)
/// share[Share.SystemFieldKey.title] = "Friday"
/// share.addParticipant(try await container.shareParticipant(forUserRecordID: Record.ID(recordName: "_bob")))
/// _ = try await container.privateCloudDatabase.modifyRecords(saving: [list, share], deleting: [])
/// ```
///
/// A share lives in a custom zone of the owner's private database. A hierarchy share covers its
/// root and every record below it through ``Record/parent``; a zone-wide share
/// (``init(recordZoneID:)``) covers the whole zone. Accepted participants see the zone in their
/// shared database, under the owner's name.
public final class Share: Record, @unchecked Sendable {
    /// `CKShare`'s record type.
    public static let recordType = "cloudkit.share"
    /// The record name of a zone-wide share.
    public static let zoneWideShareRecordName = "cloudkit.zoneshare"

    /// Keys of a share's descriptive fields, like `CKShare.SystemFieldKey`.
    public enum SystemFieldKey {
        public static let title = "cloudkit.title"
        public static let thumbnailImageData = "cloudkit.thumbnailImageData"
        public static let shareType = "cloudkit.type"
    }

    /// A hierarchy share of `rootRecord`, with a generated record name in the root's zone.
    public convenience init(rootRecord: Record) {
        self.init(rootRecord: rootRecord, shareID: Record.ID(zoneID: rootRecord.recordID.zoneID))
    }

    /// A hierarchy share of `rootRecord` with the given record ID (in the root's zone).
    public init(rootRecord: Record, shareID: Record.ID) {
        super.init(recordType: Share.recordType, recordID: shareID, state: Record.State())
        setField(.string(rootRecord.recordID.recordName), Self.rootRecordNameKey)
        setField(.int64(Int64(ParticipantPermission.none.rawValue)), Self.publicPermissionKey)
    }

    /// A zone-wide share of the zone `recordZoneID`, named ``zoneWideShareRecordName``.
    public init(recordZoneID: RecordZone.ID) {
        super.init(recordType: Share.recordType, recordID: Record.ID(recordName: Self.zoneWideShareRecordName, zoneID: recordZoneID),
                   state: Record.State())
        setField(.int64(Int64(ParticipantPermission.none.rawValue)), Self.publicPermissionKey)
    }

    /// A share as a store returned it.
    package init(recordID: Record.ID, state: Record.State) {
        super.init(recordType: Share.recordType, recordID: recordID, state: state)
    }

    /// The access anyone with the URL gets. Above `.none` the share is public: its private
    /// participants must be removed first, and setting it back to `.none` removes the public ones.
    public var publicPermission: ParticipantPermission {
        get {
            if case .int64(let raw) = field(Self.publicPermissionKey) { return ParticipantPermission(rawValue: Int(raw)) ?? .none }
            return .none
        }
        set {
            setField(.int64(Int64(newValue.rawValue)), Self.publicPermissionKey)
            if newValue == .none {
                participantList = participantList.filter { $0.role != .publicUser }
            }
        }
    }

    /// Everyone in the share, the owner first.
    public var participants: [Participant] { participantList }

    /// The owner, once the share was saved.
    public var owner: Participant {
        participantList.first { $0.role == .owner }
            ?? Participant(userIdentity: UserIdentity(userRecordID: creatorUserRecordID), role: .owner, permission: .readWrite,
                           acceptanceStatus: .accepted)
    }

    /// The participant who fetched this share, `nil` for someone outside it.
    public var currentUserParticipant: Participant? {
        guard let me = currentUserRecordName else { return nil }
        return participantList.first { $0.userIdentity.userRecordID?.recordName == me }
    }

    /// The URL to send invitees: set once the share is saved.
    public var url: URL? {
        guard case .string(let guid) = field(Self.shortGUIDKey), let base = shareURLBase else { return nil }
        return URL(string: base + guid)
    }

    /// Adds a private participant, or updates the one with the same identity (pending until accepted).
    ///
    /// CloudKit takes private participants only while ``publicPermission`` is `.none`; the save
    /// reports the mix.
    public func addParticipant(_ participant: Participant) {
        var list = participantList
        let added = participant
        if let index = list.firstIndex(where: { $0.isSamePerson(as: added) }) {
            if list[index].role == .owner { return }
            list[index].permission = added.permission
            if list[index].acceptanceStatus == .removed { list[index].acceptanceStatus = .pending }
        } else {
            var fresh = added
            if fresh.role == .unknown || fresh.role == .owner { fresh.role = .privateUser }
            if fresh.acceptanceStatus == .unknown || fresh.acceptanceStatus == .removed { fresh.acceptanceStatus = .pending }
            if fresh.permission == .unknown { fresh.permission = .readOnly }
            list.append(fresh)
        }
        participantList = list
    }

    /// Removes a participant: they lose access when the share is saved.
    public func removeParticipant(_ participant: Participant) {
        participantList = participantList.filter { !($0.isSamePerson(as: participant) && $0.role != .owner) }
    }

    public override var description: String {
        "<Share \(recordID.recordName) participants=\(participantList.count) public=\(publicPermission)>"
    }

    // MARK: Storage

    static let publicPermissionKey = "publicPermission"
    static let participantsKey = "participants"
    static let shortGUIDKey = "shortGUID"
    static let rootRecordNameKey = "rootRecordName"
    /// Not stored: who read this copy, and where its URL points; set by the store's sharing layer.
    static let currentUserKey = "cloudkitCurrentUser"
    static let urlBaseKey = "cloudkitURLBase"

    /// The record name of the hierarchy's root, `nil` for a zone-wide share.
    package var rootRecordName: String? {
        if case .string(let name) = field(Self.rootRecordNameKey) { return name }
        return nil
    }

    /// The share's unguessable short ID, `nil` until saved.
    package var shortGUID: String? {
        if case .string(let guid) = field(Self.shortGUIDKey) { return guid }
        return nil
    }

    package var participantList: [Participant] {
        get {
            guard case .string(let json) = field(Self.participantsKey), let data = json.data(using: .utf8) else { return [] }
            return (try? JSONDecoder().decode([Participant].self, from: data)) ?? []
        }
        set {
            let data = (try? JSONEncoder().encode(newValue)) ?? Data("[]".utf8)
            setField(.string(String(decoding: data, as: UTF8.self)), Self.participantsKey)
        }
    }

    package var currentUserRecordName: String? { transient.withLock { $0.currentUser } }
    var shareURLBase: String? { transient.withLock { $0.urlBase } }

    /// Read-side facts that are not fields: who fetched the share and its URL's prefix.
    let transient = Mutex<(currentUser: String?, urlBase: String?)>((nil, nil))

    package func setViewer(_ userRecordName: String?, urlBase: String?) {
        transient.withLock { $0 = (userRecordName, urlBase) }
    }

    func field(_ key: String) -> FieldValue? { state.withLock { $0.fields[key] } }

    func setField(_ value: FieldValue, _ key: String) {
        state.withLock { state in
            state.fields[key] = value
            if !state.changed.contains(key) { state.changed.append(key) }
        }
    }
}
