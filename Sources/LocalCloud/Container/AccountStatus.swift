/// Whether a user is signed in, with CloudKit's cases (`CKAccountStatus`).
public enum AccountStatus: Int, Sendable, Hashable, CustomStringConvertible {
    case couldNotDetermine = 0
    case available = 1
    case restricted = 2
    case noAccount = 3
    case temporarilyUnavailable = 4

    public var description: String {
        switch self {
        case .couldNotDetermine: "couldNotDetermine"
        case .available: "available"
        case .restricted: "restricted"
        case .noAccount: "noAccount"
        case .temporarilyUnavailable: "temporarilyUnavailable"
        }
    }
}
