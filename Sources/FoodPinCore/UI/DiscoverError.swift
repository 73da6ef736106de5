/// A failure the Discover screen shows: what failed, in words, and which form field it concerns.
///
/// The effect handler turns store and pipeline errors into this, so the UI can match on
/// ``code`` without knowing LocalCloud's or libvips' error types.
package struct DiscoverError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An extensible set of failure codes.
    package struct Code: RawRepresentable, Hashable, Sendable {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        package static let loadFailed = Code(rawValue: "loadFailed")
        package static let saveFailed = Code(rawValue: "saveFailed")
        package static let deleteFailed = Code(rawValue: "deleteFailed")
        package static let permissionDenied = Code(rawValue: "permissionDenied")
        package static let invalidImage = Code(rawValue: "invalidImage")
        package static let notFound = Code(rawValue: "notFound")
        /// The server refused the saved sign-in (expired or revoked): `foodpin login` again.
        package static let signedOut = Code(rawValue: "signedOut")
        /// The server cannot be reached or the connection broke.
        package static let offline = Code(rawValue: "offline")
        /// An edit met a change made elsewhere since it was read: ``serverVersion`` is theirs.
        package static let conflict = Code(rawValue: "conflict")
    }

    package var code: Code
    package var message: String
    /// The form field the error belongs to, if any (e.g. `.image` for a corrupt file).
    package var field: RestaurantForm.Field?
    /// A ``Code/conflict``: the restaurant as the server has it now.
    package var serverVersion: Restaurant?
    /// An `.offline` error where the server was never reached (the banner gives no reason then).
    package var isUnreachable = false

    /// A blank `message` is replaced by what `code` means: every error says what happened.
    package init(_ code: Code, _ message: String, field: RestaurantForm.Field? = nil, serverVersion: Restaurant? = nil) {
        self.code = code
        self.message = message.allSatisfy(\.isWhitespace) ? code.meaning : message
        self.field = field
        self.serverVersion = serverVersion
    }

    package var description: String { message }

    /// What the status line says when `action` ("load restaurants") failed with `cached` rows
    /// on screen: the sign-out message alone, `offline · N cached` when the server is away (with
    /// the reason when a connection broke rather than never opened).
    package func banner(couldNot action: String, cached: Int) -> String {
        switch code {
        case .signedOut: message
        case .offline: "offline · \(cached) cached" + (isUnreachable ? "" : " · \(message)")
        default: "Couldn't \(action): \(message)"
        }
    }
}

extension DiscoverError.Code {
    /// What a failure with this code means, for an error that came without a message.
    package var meaning: String {
        switch self {
        case .loadFailed: "Couldn't load restaurants (no details were given)"
        case .saveFailed: "Couldn't save the restaurant (no details were given)"
        case .deleteFailed: "Couldn't delete the restaurant (no details were given)"
        case .permissionDenied: "Permission denied (no details were given)"
        case .invalidImage: "The image could not be read (no details were given)"
        case .notFound: "Not found (no details were given)"
        case .signedOut: "Signed out: run foodpin login"
        case .offline: "The server cannot be reached (no details were given)"
        default: "\(rawValue) (no details were given)"
        }
    }
}
