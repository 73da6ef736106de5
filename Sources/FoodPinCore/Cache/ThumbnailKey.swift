/// What the thumbnail cache is keyed by: a record's image or a local file, and the size it was rendered at.
///
/// A record and a file never share a key, whatever the record is named.
package struct ThumbnailKey: Hashable, Sendable {
    /// Whose image this is.
    package enum Source: Hashable, Sendable {
        /// A record's `image` asset, by record name.
        case record(String)
        /// A local file (the form's live preview), by path.
        case file(String)
    }

    package var source: Source
    package var size: ThumbnailSize

    package init(source: Source, size: ThumbnailSize) {
        self.source = source
        self.size = size
    }

    /// The key of a record's image.
    package init(recordID: String, size: ThumbnailSize) {
        self.init(source: .record(recordID), size: size)
    }

    /// The record name, or `nil` for a file preview.
    package var recordID: String? {
        if case .record(let id) = source { id } else { nil }
    }
}
