/// Why an image was rejected or could not be processed: callers catch by ``code``.
///
/// ```swift
/// do { _ = try scaler.scale(fileAt: url) }
/// catch let error as ImageError where error.code == .notAnImage {
///     form.imageError = error.message
/// }
/// ```
public struct ImageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, stable enough to match on and to show next to a form field.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No libvips loader recognises the bytes.
        public static let notAnImage = Code(rawValue: "notAnImage")
        /// A known format whose header or pixels are truncated or damaged.
        public static let corrupt = Code(rawValue: "corrupt")
        /// The file has zero bytes.
        public static let empty = Code(rawValue: "empty")
        /// The path names a directory.
        public static let isDirectory = Code(rawValue: "isDirectory")
        /// The path does not exist, is not a regular file, or cannot be opened.
        public static let unreadable = Code(rawValue: "unreadable")
        /// The file is bigger than ``ImageScaler/maxFileBytes``.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// The header claims more than ``ImageScaler/maxPixels`` pixels (a decompression bomb, perhaps).
        public static let tooManyPixels = Code(rawValue: "tooManyPixels")
        /// libvips read the image but could not convert or scale it.
        public static let decodeFailed = Code(rawValue: "decodeFailed")
        /// The scaled JPEG could not be written.
        public static let writeFailed = Code(rawValue: "writeFailed")

        public var description: String { rawValue }
    }

    public var code: Code
    /// A short sentence for the user, e.g. "Not an image: notes.txt".
    public var message: String
    /// The file the error is about, when it is about one.
    public var path: String?
    /// libvips' own words, for logs; not meant for the user.
    public var detail: String?

    public init(_ code: Code, _ message: String, path: String? = nil, detail: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.detail = detail
    }

    public var description: String {
        var text = "ImageError.\(code): \(message)"
        if let detail, !detail.isEmpty { text += " (\(detail))" }
        return text
    }
}
