/// A CloudKit Web Services `serverErrorCode`, and the one mapping between it and ``CloudError/Code``
/// (the server writes it, the remote store reads it back).
package struct ServerErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }

    package static let accessDenied = ServerErrorCode(rawValue: "ACCESS_DENIED")
    package static let atomicError = ServerErrorCode(rawValue: "ATOMIC_ERROR")
    package static let authenticationFailed = ServerErrorCode(rawValue: "AUTHENTICATION_FAILED")
    package static let authenticationRequired = ServerErrorCode(rawValue: "AUTHENTICATION_REQUIRED")
    package static let badRequest = ServerErrorCode(rawValue: "BAD_REQUEST")
    package static let conflict = ServerErrorCode(rawValue: "CONFLICT")
    package static let exists = ServerErrorCode(rawValue: "EXISTS")
    package static let internalError = ServerErrorCode(rawValue: "INTERNAL_ERROR")
    package static let notFound = ServerErrorCode(rawValue: "NOT_FOUND")
    package static let quotaExceeded = ServerErrorCode(rawValue: "QUOTA_EXCEEDED")
    package static let throttled = ServerErrorCode(rawValue: "THROTTLED")
    package static let tryAgainLater = ServerErrorCode(rawValue: "TRY_AGAIN_LATER")
    package static let validatingReferenceError = ServerErrorCode(rawValue: "VALIDATING_REFERENCE_ERROR")
    package static let zoneNotFound = ServerErrorCode(rawValue: "ZONE_NOT_FOUND")
    /// Sharing's refusals, which the reference's list lacks: named after CKError's cases so a
    /// client can raise the same error.
    package static let alreadyShared = ServerErrorCode(rawValue: "ALREADY_SHARED")
    package static let participantMayNeedVerification = ServerErrorCode(rawValue: "PARTICIPANT_MAY_NEED_VERIFICATION")
    package static let tooManyParticipants = ServerErrorCode(rawValue: "TOO_MANY_PARTICIPANTS")

    package var description: String { rawValue }

    /// The HTTP status of a whole-request failure with this code, as the reference gives it.
    package var httpStatus: Int {
        switch self {
        case .badRequest, .atomicError, .validatingReferenceError, .tooManyParticipants: 400
        case .participantMayNeedVerification: 403
        case .alreadyShared: 409
        case .authenticationFailed: 401
        case .accessDenied: 403
        case .notFound, .zoneNotFound: 404
        case .conflict, .exists: 409
        case .quotaExceeded: 413
        case .authenticationRequired: 421
        case .throttled: 429
        case .tryAgainLater: 503
        default: 500
        }
    }

    /// The wire code for a LocalCloud error code.
    package init(_ code: CloudError.Code) {
        switch code {
        case .invalidArguments, .serverRejectedRequest, .incompatibleVersion, .badDatabase, .badContainer,
             .assetFileNotFound, .assetFileModified, .changeTokenExpired, .resultsTruncated:
            self = .badRequest
        case .notAuthenticated: self = .authenticationRequired
        case .missingEntitlement, .managedAccountRestricted: self = .authenticationFailed
        case .permissionFailure: self = .accessDenied
        case .unknownItem, .assetNotAvailable: self = .notFound
        case .serverRecordChanged: self = .conflict
        case .constraintViolation: self = .exists
        case .quotaExceeded, .limitExceeded: self = .quotaExceeded
        case .requestRateLimited: self = .throttled
        case .serviceUnavailable, .zoneBusy, .accountTemporarilyUnavailable: self = .tryAgainLater
        case .zoneNotFound, .userDeletedZone: self = .zoneNotFound
        case .batchRequestFailed: self = .atomicError
        case .referenceViolation: self = .validatingReferenceError
        case .alreadyShared: self = .alreadyShared
        case .participantMayNeedVerification: self = .participantMayNeedVerification
        case .tooManyParticipants: self = .tooManyParticipants
        default: self = .internalError
        }
    }

    /// The LocalCloud code a client raises for this wire code.
    package var cloudErrorCode: CloudError.Code {
        switch self {
        case .badRequest: .invalidArguments
        case .authenticationRequired, .authenticationFailed: .notAuthenticated
        case .accessDenied: .permissionFailure
        case .notFound: .unknownItem
        case .conflict: .serverRecordChanged
        case .exists: .constraintViolation
        case .quotaExceeded: .limitExceeded
        case .throttled: .requestRateLimited
        case .tryAgainLater: .serviceUnavailable
        case .zoneNotFound: .zoneNotFound
        case .atomicError: .batchRequestFailed
        case .validatingReferenceError: .referenceViolation
        case .alreadyShared: .alreadyShared
        case .participantMayNeedVerification: .participantMayNeedVerification
        case .tooManyParticipants: .tooManyParticipants
        default: .internalError
        }
    }
}
