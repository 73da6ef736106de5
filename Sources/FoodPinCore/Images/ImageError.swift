/// Why an image was rejected or could not be processed: callers catch by ``code``.
///
/// ```swift
/// do { _ = try scaler.scale(fileAt: url) }
/// catch let error as ImageError where error.code == .notAnImage {
///     form.imageError = error.message
/// }
/// ```
package struct ImageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, stable enough to match on and to show next to a form field.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// No libvips loader recognises the bytes.
        package static let notAnImage = Code(rawValue: "notAnImage")
        /// A known format whose header or pixels are truncated or damaged.
        package static let corrupt = Code(rawValue: "corrupt")
        /// The file has zero bytes.
        package static let empty = Code(rawValue: "empty")
        /// The path names a directory.
        package static let isDirectory = Code(rawValue: "isDirectory")
        /// The path does not exist, is not a regular file, or cannot be opened.
        package static let unreadable = Code(rawValue: "unreadable")
        /// The file is bigger than ``ImageScaler/maxFileBytes``.
        package static let tooLarge = Code(rawValue: "tooLarge")
        /// The header claims more than ``ImageScaler/maxPixels`` pixels (a decompression bomb, perhaps).
        package static let tooManyPixels = Code(rawValue: "tooManyPixels")
        /// libvips read the image but could not convert or scale it.
        package static let decodeFailed = Code(rawValue: "decodeFailed")
        /// The scaled JPEG could not be written.
        package static let writeFailed = Code(rawValue: "writeFailed")

        package var description: String { rawValue }
    }

    package var code: Code
    /// A short sentence for the user, e.g. "Not an image: notes.txt".
    package var message: String
    /// The file the error is about, when it is about one.
    package var path: String?
    /// libvips' own words, for logs; not meant for the user.
    package var detail: String?

    package init(_ code: Code, _ message: String, path: String? = nil, detail: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.detail = detail
    }

    package var description: String {
        var text = "ImageError.\(code): \(message)"
        if let detail, !detail.isEmpty { text += " (\(detail))" }
        return text
    }
}
