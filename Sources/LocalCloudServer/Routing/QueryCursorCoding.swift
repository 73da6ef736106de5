import Foundation
import LocalCloud

/// Continuation markers and sync tokens on the wire: URL-safe base64 of the opaque values,
/// so any node can continue what another began.
enum QueryCursorCoding {
    static func encode(_ cursor: Query.Cursor) throws -> String {
        Base64URL.encode(try JSONEncoder().encode(cursor))
    }

    static func decode(_ text: String) -> Query.Cursor? {
        guard text.utf8.count < 64 * 1024, let data = Base64URL.decode(text) else { return nil }
        return try? JSONDecoder().decode(Query.Cursor.self, from: data)
    }
}

enum SyncTokenCoding {
    static func encode(_ token: ServerChangeToken) -> String {
        Base64URL.encode(token.data)
    }

    /// `nil` (no token) means from the beginning.
    static func decode(_ json: JSONValue?) throws -> ServerChangeToken? {
        switch json {
        case nil, .null?: return nil
        case .string(let text)?:
            guard let data = Base64URL.decode(text), let token = try? ServerChangeToken(data: data) else {
                throw ServerError(.badRequest, "syncToken is not one this server issued")
            }
            return token
        default: throw ServerError(.badRequest, "syncToken must be a string")
        }
    }
}
