import Foundation
import LocalCloud
import Synchronization

/// The containers a server serves: every `<container>/` in the data directory, opened on first
/// use and kept open, one store per container and environment however many users act on it.
final class StoreRegistry: Sendable {
    let dataDirectory: URL
    private let opened = Mutex<[Key: Container]>([:])

    private struct Key: Hashable {
        var container: String
        var environment: Container.Environment
        var user: String?
    }

    /// Requests in flight per database and user; writes among them share commits.
    static let operationsPerDatabase = 32

    /// Opens the stores elsewhere (PostgreSQL) when set.
    let storeOpener: StoreOpener?

    init(dataDirectory: URL, storeOpener: StoreOpener? = nil) {
        self.dataDirectory = dataDirectory
        self.storeOpener = storeOpener
    }

    /// The container seen by `user` (`nil`: no account).
    ///
    /// - Throws: BAD_REQUEST for a container identifier that could name a path outside the data directory.
    func container(_ identifier: String, environment: Container.Environment, user: String?) throws -> Container {
        try Self.validate(containerIdentifier: identifier)
        return opened.withLock { opened in
            let key = Key(container: identifier, environment: environment, user: user)
            if let container = opened[key] { return container }
            let baseKey = Key(container: identifier, environment: environment, user: nil)
            var configuration = Container.Configuration(
                containerIdentifier: identifier, dataDirectory: dataDirectory, user: nil, environment: environment)
            configuration.storeOpener = storeOpener
            let base = opened[baseKey] ?? Container(configuration: configuration)
            base.setMaximumConcurrentOperations(Self.operationsPerDatabase)
            opened[baseKey] = base
            let container = user == nil ? base : base.acting(as: user)
            container.setMaximumConcurrentOperations(Self.operationsPerDatabase)
            opened[key] = container
            return container
        }
    }

    /// Container identifiers are reverse-DNS names (`iCloud.com.example.App`): letters, digits, `.`, `-`, `_`.
    /// The (container, environment) pairs opened so far.
    func openedKeys() -> [(String, Container.Environment)] {
        opened.withLock { opened in opened.keys.map { ($0.container, $0.environment) } }
    }

    static func validate(containerIdentifier: String) throws {
        let allowed = containerIdentifier.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard allowed, !containerIdentifier.isEmpty, containerIdentifier.utf8.count <= 255,
              containerIdentifier != ".", containerIdentifier != "..", !containerIdentifier.hasPrefix(".")
        else {
            throw ServerError(.badRequest, "Invalid container identifier")
        }
    }
}
