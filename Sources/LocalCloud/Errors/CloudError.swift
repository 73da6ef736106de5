import Foundation

/// An error from LocalCloud, shaped like `CKError`: callers catch by ``code``.
///
/// ```swift
/// do { try await db.save(record) }
/// catch let error as CloudError where error.code == .serverRecordChanged {
///     let server = error.serverRecord
/// }
/// ```
public struct CloudError: Error, Sendable, CustomStringConvertible {
    /// CKError's codes, with CKError's raw values.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let internalError = Code(rawValue: 1)
        public static let partialFailure = Code(rawValue: 2)
        public static let networkUnavailable = Code(rawValue: 3)
        public static let networkFailure = Code(rawValue: 4)
        public static let badContainer = Code(rawValue: 5)
        public static let serviceUnavailable = Code(rawValue: 6)
        public static let requestRateLimited = Code(rawValue: 7)
        public static let missingEntitlement = Code(rawValue: 8)
        public static let notAuthenticated = Code(rawValue: 9)
        public static let permissionFailure = Code(rawValue: 10)
        public static let unknownItem = Code(rawValue: 11)
        public static let invalidArguments = Code(rawValue: 12)
        public static let resultsTruncated = Code(rawValue: 13)
        public static let serverRecordChanged = Code(rawValue: 14)
        public static let serverRejectedRequest = Code(rawValue: 15)
        public static let assetFileNotFound = Code(rawValue: 16)
        public static let assetFileModified = Code(rawValue: 17)
        public static let incompatibleVersion = Code(rawValue: 18)
        public static let constraintViolation = Code(rawValue: 19)
        public static let operationCancelled = Code(rawValue: 20)
        public static let changeTokenExpired = Code(rawValue: 21)
        public static let batchRequestFailed = Code(rawValue: 22)
        public static let zoneBusy = Code(rawValue: 23)
        public static let badDatabase = Code(rawValue: 24)
        public static let quotaExceeded = Code(rawValue: 25)
        public static let zoneNotFound = Code(rawValue: 26)
        public static let limitExceeded = Code(rawValue: 27)
        public static let userDeletedZone = Code(rawValue: 28)
        public static let tooManyParticipants = Code(rawValue: 29)
        public static let alreadyShared = Code(rawValue: 30)
        public static let referenceViolation = Code(rawValue: 31)
        public static let managedAccountRestricted = Code(rawValue: 32)
        public static let participantMayNeedVerification = Code(rawValue: 33)
        public static let serverResponseLost = Code(rawValue: 34)
        public static let assetNotAvailable = Code(rawValue: 35)
        public static let accountTemporarilyUnavailable = Code(rawValue: 36)

        /// The code's name as CKError spells it (`serverRecordChanged`), in one exhaustive place.
        public var name: String {
            switch self {
            case .internalError: "internalError"
            case .partialFailure: "partialFailure"
            case .networkUnavailable: "networkUnavailable"
            case .networkFailure: "networkFailure"
            case .badContainer: "badContainer"
            case .serviceUnavailable: "serviceUnavailable"
            case .requestRateLimited: "requestRateLimited"
            case .missingEntitlement: "missingEntitlement"
            case .notAuthenticated: "notAuthenticated"
            case .permissionFailure: "permissionFailure"
            case .unknownItem: "unknownItem"
            case .invalidArguments: "invalidArguments"
            case .resultsTruncated: "resultsTruncated"
            case .serverRecordChanged: "serverRecordChanged"
            case .serverRejectedRequest: "serverRejectedRequest"
            case .assetFileNotFound: "assetFileNotFound"
            case .assetFileModified: "assetFileModified"
            case .incompatibleVersion: "incompatibleVersion"
            case .constraintViolation: "constraintViolation"
            case .operationCancelled: "operationCancelled"
            case .changeTokenExpired: "changeTokenExpired"
            case .batchRequestFailed: "batchRequestFailed"
            case .zoneBusy: "zoneBusy"
            case .badDatabase: "badDatabase"
            case .quotaExceeded: "quotaExceeded"
            case .zoneNotFound: "zoneNotFound"
            case .limitExceeded: "limitExceeded"
            case .userDeletedZone: "userDeletedZone"
            case .tooManyParticipants: "tooManyParticipants"
            case .alreadyShared: "alreadyShared"
            case .referenceViolation: "referenceViolation"
            case .managedAccountRestricted: "managedAccountRestricted"
            case .participantMayNeedVerification: "participantMayNeedVerification"
            case .serverResponseLost: "serverResponseLost"
            case .assetNotAvailable: "assetNotAvailable"
            case .accountTemporarilyUnavailable: "accountTemporarilyUnavailable"
            default: "code\(rawValue)"
            }
        }

        public var description: String { "\(name) (\(rawValue))" }

        /// Matches a `CloudError` with this code, so callers catch by code as GRDB's do:
        ///
        /// ```swift
        /// do { try await db.save(record) }
        /// catch CloudError.Code.serverRecordChanged { … }
        /// ```
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? CloudError)?.code == code
        }
    }

    public var code: Code
    /// A readable message naming what went wrong.
    public var message: String
    /// The underlying error, if any (a SQLite error, a file-system error).
    public var cause: (any Error & Sendable)?
    /// The item the error is about, when it is about one.
    public var recordID: Record.ID?
    /// On `serverRecordChanged`: the record as the server has it.
    public var serverRecord: Record?
    /// On `serverRecordChanged`: the copy the client tried to save.
    public var clientRecord: Record?
    /// On `partialFailure`: the error of each failed item.
    public var partialErrorsByItemID: [AnyHashableSendable: CloudError]
    /// Seconds to wait before retrying, where it applies.
    public var retryAfterSeconds: Double?

    public init(
        _ code: Code,
        _ message: String,
        cause: (any Error & Sendable)? = nil,
        recordID: Record.ID? = nil,
        serverRecord: Record? = nil,
        clientRecord: Record? = nil,
        partialErrorsByItemID: [AnyHashableSendable: CloudError] = [:],
        retryAfterSeconds: Double? = nil
    ) {
        self.code = code
        self.message = message
        self.cause = cause
        self.recordID = recordID
        self.serverRecord = serverRecord
        self.clientRecord = clientRecord
        self.partialErrorsByItemID = partialErrorsByItemID
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var localizedDescription: String { message }
    public var description: String { "\(code.name) (\(code.rawValue)): \(message)" }
}

/// A Sendable, hashable box for partial-failure keys (`Record.ID`, `RecordZone.ID`, subscription IDs).
public struct AnyHashableSendable: Hashable, Sendable {
    public let base: any Hashable & Sendable
    public init(_ base: some Hashable & Sendable) { self.base = base }
    public static func == (lhs: Self, rhs: Self) -> Bool { AnyHashable(lhs.base) == AnyHashable(rhs.base) }
    public func hash(into hasher: inout Hasher) { AnyHashable(base).hash(into: &hasher) }
}
