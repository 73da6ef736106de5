extension Record {
    /// The stored field that holds ``parent``: a plain field, so every store keeps it without a column.
    package static let parentKey = "cloudkitParent"
    /// The stored field that holds ``share`` on a shared root record.
    package static let shareKey = "cloudkitShare"
    /// Fields the sharing model keeps in a record's field bag, left out of ``allKeys()`` as CloudKit does.
    static let sharingKeys: Set<String> = [parentKey, shareKey]

    /// The record above this one in a share's hierarchy, like `CKRecord.parent`.
    ///
    /// A hierarchy share (``Share/init(rootRecord:)``) covers its root and every record whose
    /// parent chain leads to it; other reference fields don't count.
    public var parent: Reference? {
        get {
            if case .reference(let reference) = state.withLock({ $0.fields[Self.parentKey] }) { return reference }
            return nil
        }
        set { setObject(newValue, forKey: Self.parentKey) }
    }

    /// Sets ``parent`` to `parentRecord` (or clears it), like `CKRecord.setParent(_:)`.
    public func setParent(_ parentRecord: Record?) {
        parent = parentRecord.map { Reference(record: $0, action: .none) }
    }

    /// Sets ``parent`` to the record with `parentID` (or clears it).
    public func setParent(_ parentID: Record.ID?) {
        parent = parentID.map { Reference(recordID: $0, action: .none) }
    }

    /// The share whose root this record is, like `CKRecord.share`; set by the save of the share.
    public internal(set) var share: Reference? {
        get {
            if case .reference(let reference) = state.withLock({ $0.fields[Self.shareKey] }) { return reference }
            return nil
        }
        set { setObject(newValue, forKey: Self.shareKey) }
    }
}
