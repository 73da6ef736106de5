/// One share as its store keeps it: in `owner`'s private database.
package struct StoredShare: Sendable {
    package var owner: String
    package var share: Share

    package init(owner: String, share: Share) {
        self.owner = owner
        self.share = share
    }

    package var zoneName: String { share.recordID.zoneID.zoneName }
}

/// What a store gives the sharing rules: every share in every user's private database.
///
/// Shares are ordinary records (of type ``Share/storedRecordType``) in the owner's zone; this is
/// the one query that crosses owners, for share URLs and for the shared database's zone list.
package protocol ShareCatalog: Sendable {
    func storedShares() async throws -> [StoredShare]
}
