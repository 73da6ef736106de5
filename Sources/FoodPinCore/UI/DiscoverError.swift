/// A failure the Discover screen shows: what failed, in words, and which form field it concerns.
///
/// The effect handler turns store and pipeline errors into this, so the UI can match on
/// ``code`` without knowing LocalCloud's or libvips' error types.
public struct DiscoverError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An extensible set of failure codes.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let loadFailed = Code(rawValue: "loadFailed")
        public static let saveFailed = Code(rawValue: "saveFailed")
        public static let deleteFailed = Code(rawValue: "deleteFailed")
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        public static let invalidImage = Code(rawValue: "invalidImage")
        public static let notFound = Code(rawValue: "notFound")
    }

    public var code: Code
    public var message: String
    /// The form field the error belongs to, if any (e.g. `.image` for a corrupt file).
    public var field: RestaurantForm.Field?

    public init(_ code: Code, _ message: String, field: RestaurantForm.Field? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String { message }
}
