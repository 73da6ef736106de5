import LocalCloud
import Synchronization

/// The schema and statistics of each container environment, kept until its next commit (its
/// ``ChangeStamp`` moves), so console pages do not decode the schema or count every record on
/// every load. The stamp is read before computing, as ``ResponseCache`` does: a commit landing
/// meanwhile leaves the entry stale rather than wrong.
///
/// Invariant: at most ``capacity`` entries.
final class ConsoleSnapshots: Sendable {
    struct Key: Hashable, Sendable {
        var container: String
        var environment: Container.Environment
        var kind: Kind
    }

    enum Kind: Hashable, Sendable {
        case schema
        case statistics
    }

    private enum Value: Sendable {
        case schema(Schema)
        case statistics(ContainerStatistics)
    }

    static let capacity = 256
    private let entries = Mutex<[Key: (stamp: ChangeStamp, value: Value)]>([:])

    func schema(of container: Container, identifier: String, environment: Container.Environment) async throws -> Schema {
        let key = Key(container: identifier, environment: environment, kind: .schema)
        let stamp = try await container.changeStamp()
        if case .schema(let schema)? = entry(key, stamp: stamp) { return schema }
        let schema = try await container.schema()
        store(key, stamp: stamp, .schema(schema))
        return schema
    }

    func statistics(of container: Container, identifier: String, environment: Container.Environment) async throws -> ContainerStatistics {
        let key = Key(container: identifier, environment: environment, kind: .statistics)
        let stamp = try await container.changeStamp()
        if case .statistics(let statistics)? = entry(key, stamp: stamp) { return statistics }
        let statistics = try await container.statistics()
        store(key, stamp: stamp, .statistics(statistics))
        return statistics
    }

    private func entry(_ key: Key, stamp: ChangeStamp) -> Value? {
        entries.withLock { entries in entries[key].flatMap { $0.stamp == stamp ? $0.value : nil } }
    }

    private func store(_ key: Key, stamp: ChangeStamp, _ value: Value) {
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[key] == nil { entries.removeAll() }
            entries[key] = (stamp, value)
        }
    }
}
