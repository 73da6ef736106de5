/// How loading one thumbnail ended.
package enum ThumbnailOutcome: Sendable {
    case image(any ThumbnailImage)
    /// The record has no image.
    case noImage
    /// Fetching or rendering failed; the row keeps a placeholder.
    case failed(String)
}
