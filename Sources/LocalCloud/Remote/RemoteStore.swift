import Foundation
import Synchronization

/// A container's store on a `localcloud serve` (or any CloudKit Web Services server): the
/// `CloudStore` the embedded SQLite file is, over HTTP.
///
/// ```swift
/// var configuration = Container.Configuration(dataDirectory: dir, user: "alice")
/// configuration.serverURL = URL(string: "https://cloud.example:8642")
/// configuration.apiToken = apiToken
/// configuration.webAuthToken = webAuthToken
/// let container = Container(configuration: configuration)   // same API, remote data
/// ```
///
/// Semantics (conflicts, roles, cursors, limits) are the server's, which runs the same store
/// code as the embedded container; this type only translates. Calls block the database's
/// operation-queue thread while the request is in flight. Fetched assets are kept in
/// `<data dir>/<container>/remote-<host>-<environment>/assets/` by content digest, so a record's
/// `Asset.fileURL` is a readable local file, as in CloudKit.
///
/// What only an administrator does on the server (schema edits, reset, garbage collection,
/// change-log compaction, statistics) throws `serverRejectedRequest`: run `localcloud` there.
package final class RemoteStore: CloudStore {
    let client: WebServicesClient
    let configuration: Container.Configuration
    /// `<data dir>/<container>/remote-<host>-<environment>/`
    let cacheDirectory: URL
    /// Changes seen through this store (its own writes and pushed notifications): the change stamp.
    let commits = Atomic<UInt64>(0)
    /// For each record, the change sequence of the last pushed change claimed as this machine's
    /// own: one change can fire several subscriptions, and each of its notifications is own.
    let ownChangeSequences = Mutex<[String: Int64]>([:])

    /// Creates and deletes waiting for the server.
    let outbox: Outbox
    /// The last answers, for reading while the server is away.
    let responses: ResponseCache
    /// Whether the last request reached the server (`false` after a network failure).
    let reachable = Atomic<Bool>(true)
    let uploader = BackgroundWorker(name: "LocalCloud outbox")
    /// Runs the catch-up (``catchUp(_:)``) after launch and after each reconnect.
    let catchUpWorker = BackgroundWorker(name: "LocalCloud catch-up")
    /// Asks the server whether it answers when the push stream says it may have gone or come back.
    let prober = BackgroundWorker(name: "LocalCloud probe")
    /// Those waiting for the outbox to have nothing left to upload (``waitForUploads(upTo:)``).
    let uploadWaiters = Mutex<[UUID: CheckedContinuation<Void, Never>]>([:])
    /// Those waiting to hear when ``reachable`` changes (``reachabilityChanges()``).
    let reachabilityWatchers = Mutex<[UUID: AsyncStream<Bool>.Continuation]>([:])

    init(client: WebServicesClient, configuration: Container.Configuration) throws {
        self.client = client
        self.configuration = configuration
        let host = client.endpoint.host.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }
        cacheDirectory = configuration.containerDirectory
            .appendingPathComponent("remote-\(String(host))-\(configuration.environment.rawValue)", isDirectory: true)
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        outbox = try Outbox(fileURL: cacheDirectory.appendingPathComponent("outbox.sqlite"), user: configuration.user)
        responses = try ResponseCache(fileURL: cacheDirectory.appendingPathComponent("cache.sqlite"), clock: configuration.clock)
    }

    /// The store for a configuration with a ``Container/Configuration/serverURL``.
    /// - Throws: `badContainer` without a server URL, `notAuthenticated` without an API token.
    package static func open(configuration: Container.Configuration) throws -> RemoteStore {
        guard let serverURL = configuration.serverURL else {
            throw CloudError(.badContainer, "A remote container needs a server URL (LOCALCLOUD_URL or foodpin login)")
        }
        guard let apiToken = configuration.apiToken, !apiToken.isEmpty else {
            throw CloudError(.notAuthenticated, "No API token for \(serverURL.absoluteString): set LOCALCLOUD_API_TOKEN or run foodpin login")
        }
        let endpoint = WebServicesEndpoint(serverURL: serverURL, containerIdentifier: configuration.containerIdentifier,
                                           environment: configuration.environment, apiToken: apiToken,
                                           webAuthToken: configuration.webAuthToken)
        let client = WebServicesClient(endpoint: endpoint, transport: .fromEnvironment(), serverClock: ServerClock(local: configuration.clock))
        let store = try RemoteStore(client: client, configuration: configuration)
        try FileManager.default.createDirectory(at: store.assetCacheDirectory, withIntermediateDirectories: true)
        // What an earlier process queued goes up as soon as the server answers.
        if try store.outbox.next() != nil { store.startUploading() }
        // What changed while no process was running reaches the cache.
        if try store.responses.changeToken(.public) != nil || store.responses.changeToken(.private) != nil { store.startCatchUp() }
        return store
    }

    package func close() {
        uploader.stop()
        catchUpWorker.stop()
        prober.stop()
        for watcher in reachabilityWatchers.withLock({ $0.values }) { watcher.finish() }
    }

    package func changeStamp() throws -> ChangeStamp {
        ChangeStamp(commits: commits.load(ordering: .acquiring))
    }

    func noteChange() {
        commits.add(1, ordering: .releasing)
    }

    /// Counts changes about to be sent as this machine's own (see ``isOwnChange(_:sequence:)``).
    func noteOwnChanges(_ recordNames: [String]) {
        guard let user = configuration.user else { return }
        try? responses.noteOwnChanges(recordNames, user: user)
    }

    /// Whether a pushed change (change-log `sequence`) to `recordName` is one this machine made.
    ///
    /// Exact, not a time window: each save or delete sent from this cache is counted before it is
    /// sent (and taken back if refused), and each pushed change of that record claims one count.
    /// The notifications of one change (it may fire several subscriptions) share its sequence.
    func isOwnChange(_ recordName: String, sequence: Int64?) -> Bool {
        if let sequence, ownChangeSequences.withLock({ $0[recordName] == sequence }) { return true }
        guard let user = configuration.user, (try? responses.claimOwnChange(recordName, user: user)) == true else { return false }
        if let sequence { ownChangeSequences.withLock { $0[recordName] = sequence } }
        return true
    }

    /// Takes back counts of changes the server refused: no notification will come for them.
    func forgetOwnChanges(_ recordNames: [String]) {
        guard let user = configuration.user else { return }
        for name in recordNames { try? responses.forgetOwnChange(name, user: user) }
    }

    /// `serverRejectedRequest` for what only the server's administrator does.
    static func administrative(_ what: String) -> CloudError {
        CloudError(.serverRejectedRequest, "\(what) is not available on a remote container: run `localcloud` on the server")
    }

    /// A per-item failure from the wire (`{serverErrorCode, reason, retryAfter?}`).
    static func itemError(_ json: JSONValue) -> CloudError? {
        guard let code = json["serverErrorCode"]?.stringValue else { return nil }
        return CloudError(ServerErrorCode(rawValue: code).cloudErrorCode, json["reason"]?.stringValue ?? code,
                          retryAfterSeconds: json["retryAfter"]?.doubleValue)
    }

    /// Results of a call, in the order the request listed its items.
    static func items(_ json: JSONValue, _ key: String, expected: Int) throws -> [JSONValue] {
        let items = json[key]?.arrayValue ?? []
        guard items.count == expected else {
            throw CloudError(.networkFailure, "The server answered \(items.count) \(key) for \(expected) requested")
        }
        return items
    }
}
