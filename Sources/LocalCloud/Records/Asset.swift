import Foundation

/// A file attached to a record, like `CKAsset`.
///
/// On save the file's bytes are copied into the container's content-addressed
/// asset store, so the caller may delete its own file once the save returns.
/// A fetched record's asset has a `fileURL` to a readable local copy.
public final class Asset: Sendable {
    /// The file to upload (before save) or the local copy (after fetch). `nil` when
    /// the field was fetched without its file.
    public let fileURL: URL?
    /// SHA-256 of the content, hex; set once the asset is in the store.
    package let contentDigest: String?
    /// Size in bytes, once known.
    package let size: Int64?

    public init(fileURL: URL) {
        self.fileURL = fileURL
        contentDigest = nil
        size = nil
    }

    package init(fileURL: URL?, contentDigest: String?, size: Int64?) {
        self.fileURL = fileURL
        self.contentDigest = contentDigest
        self.size = size
    }
}
