import Foundation

/// One of a container's databases, like `CKDatabase`: public, private or shared.
///
/// Every call runs as an operation on the database's queue, off the caller's thread,
/// after the configured simulated latency.
public final class Database: Sendable, CustomStringConvertible {
    /// Which database, with `CKDatabase.Scope`'s raw values.
    public enum Scope: Int, Sendable, Hashable, Codable, CustomStringConvertible {
        case `public` = 1
        case `private` = 2
        case shared = 3

        public var description: String {
            switch self {
            case .public: "public"
            case .private: "private"
            case .shared: "shared"
            }
        }
    }

    public let databaseScope: Scope
    let core: ContainerCore
    let queue: OperationQueue

    init(scope: Scope, core: ContainerCore) {
        databaseScope = scope
        self.core = core
        queue = OperationQueue()
        queue.name = "LocalCloud.\(scope)"
        queue.maxConcurrentOperationCount = 4
    }

    /// Runs an operation on this database's queue, honouring its `queuePriority` and `qualityOfService`.
    public func add(_ operation: DatabaseOperation) {
        operation.database = self
        queue.addOperation(operation)
    }

    public var description: String { "<Database \(databaseScope) \(core.configuration.containerIdentifier)>" }

    var context: StoreContext { core.context(databaseScope) }
    func store() async throws -> any CloudStore { try await core.store(for: databaseScope) }
}
