import Foundation
import Hummingbird
import LocalCloud

/// An error as CloudKit Web Services reports it: `{uuid, serverErrorCode, reason}` with the
/// HTTP status the reference gives for the code.
///
/// ```swift
/// throw ServerError(.badRequest, "query.recordType is missing")
/// ```
struct ServerError: Error, Sendable, CustomStringConvertible {
    var code: ServerErrorCode
    var reason: String
    /// AUTHENTICATION_REQUIRED: where a person signs in.
    var redirectURL: String?
    /// THROTTLED / TRY_AGAIN_LATER: seconds to wait.
    var retryAfter: Double?

    init(_ code: ServerErrorCode, _ reason: String, redirectURL: String? = nil, retryAfter: Double? = nil) {
        self.code = code
        self.reason = reason
        self.redirectURL = redirectURL
        self.retryAfter = retryAfter
    }

    var description: String { "\(code.rawValue): \(reason)" }

    var status: HTTPResponse.Status { HTTPResponse.Status(code: code.httpStatus) }
}

extension ServerError {
    /// A LocalCloud error as the wire reports it.
    init(_ error: CloudError) {
        self.init(ServerErrorCode(error.code), error.message, retryAfter: error.retryAfterSeconds)
    }

    /// Any error a handler let through: CloudErrors keep their code, Hummingbird's HTTP errors
    /// their status; anything else is internal, and its text is not sent (it may name files or SQL).
    init(wrapping error: any Error) {
        switch error {
        case let error as ServerError: self = error
        case let error as CloudError: self.init(error)
        case let error as any HTTPResponseError:
            switch error.status.code {
            case 413: self.init(.quotaExceeded, "The request body is larger than the server accepts")
            case 404: self.init(.notFound, "No such endpoint")
            case 405: self.init(.badRequest, "This endpoint does not accept that method")
            case 400..<500: self.init(.badRequest, (error as? HTTPError)?.body ?? "Bad request")
            default: self.init(.internalError, "The server could not complete the request")
            }
        default: self.init(.internalError, "The server could not complete the request")
        }
    }

    /// The JSON body: `{uuid, serverErrorCode, reason}` plus `redirectURL`/`retryAfter` where they apply.
    var json: JSONValue {
        var body: [String: JSONValue] = [
            "uuid": .string(UUID().uuidString), "serverErrorCode": .string(code.rawValue), "reason": .string(reason),
        ]
        if let redirectURL { body["redirectURL"] = .string(redirectURL) }
        if let retryAfter { body["retryAfter"] = .number(retryAfter) }
        return .object(body)
    }
}
