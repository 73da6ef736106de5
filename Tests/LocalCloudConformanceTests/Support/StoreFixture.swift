import Foundation
import LocalCloudPostgres
import LocalCloudServerTesting
import PostgresTestSupport
import Testing
@testable import LocalCloud

/// The stores every conformance test runs on, each from a fresh, empty environment with
/// ``conformanceSchema`` installed. The same assertions run on each; only what is genuinely
/// different (latency, offline behaviour) is tested elsewhere.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The SQLite file in a data directory.
    case embedded
    /// A remote container on a real `localcloud serve`, started on a free loopback port.
    case remote
    /// PostgreSQL, on a private cluster the tests start (``PostgresCluster``); a fresh database per test.
    case postgres

    /// Every store; PostgreSQL only when LOCALCLOUD_SKIP_POSTGRES=1 is not set (without it, a
    /// machine lacking PostgreSQL fails these tests with a message that says how to install it).
    static var allCases: [StoreKind] {
        PostgresCluster.isSkipped ? [.embedded, .remote] : [.embedded, .remote, .postgres]
    }

    var testDescription: String { rawValue }

    func makeFixture() async throws -> any StoreFixture {
        switch self {
        case .embedded: try await EmbeddedFixture()
        case .remote: try await RemoteFixture()
        case .postgres: try await PostgresStoreFixture()
        }
    }
}

/// One store under test.
protocol StoreFixture: Sendable {
    /// A container acting as `user` (`nil`: no account) on this store, opened as an app opens it.
    func container(user: String?) async throws -> Container
    /// Stops what the fixture started and removes its files.
    func tearDown() async
    /// Adds a discoverable account with an email address, as `localcloud users add NAME --email` does.
    func addAccount(_ name: String, email: String) async throws
}

/// Runs `body` on a fresh fixture of `kind` and tears it down afterwards, whatever happens.
func withStore(_ kind: StoreKind, _ body: (any StoreFixture) async throws -> Void) async throws {
    let fixture = try await kind.makeFixture()
    do {
        try await body(fixture)
    } catch {
        await fixture.tearDown()
        throw error
    }
    await fixture.tearDown()
}

/// The schema the suite runs against: FoodPin's `Restaurant` and an `Item` with a field of every type.
let conformanceSchemaText = """
    DEFINE SCHEMA
        RECORD TYPE Restaurant (
            "___createTime" TIMESTAMP SORTABLE,
            "___createdBy"  REFERENCE QUERYABLE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP SORTABLE,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE QUERYABLE,
            name            STRING QUERYABLE SORTABLE SEARCHABLE,
            type            STRING QUERYABLE SEARCHABLE,
            location        STRING QUERYABLE SEARCHABLE,
            phone           STRING,
            description     STRING SEARCHABLE,
            image           ASSET,
            GRANT WRITE TO "_creator",
            GRANT CREATE TO "_icloud",
            GRANT READ TO "_world"
        );
        RECORD TYPE Item (
            "___createTime" TIMESTAMP SORTABLE,
            "___createdBy"  REFERENCE QUERYABLE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP SORTABLE,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE QUERYABLE,
            title           STRING QUERYABLE SORTABLE SEARCHABLE,
            count           INT64 QUERYABLE SORTABLE,
            price           DOUBLE QUERYABLE SORTABLE,
            due             TIMESTAMP QUERYABLE SORTABLE,
            place           LOCATION QUERYABLE SORTABLE,
            tags            LIST<STRING> QUERYABLE,
            blob            BYTES,
            file            ASSET,
            owner           REFERENCE QUERYABLE,
            GRANT WRITE TO "_creator",
            GRANT CREATE TO "_icloud",
            GRANT READ TO "_world"
        );
    """

/// The SQLite store in a temporary data directory.
struct EmbeddedFixture: StoreFixture {
    let directory: URL

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = try await Container(configuration: configuration(user: nil)).importSchema(Schema(ckdb: conformanceSchemaText))
    }

    func configuration(user: String?) -> Container.Configuration {
        Container.Configuration(containerIdentifier: "iCloud.Conformance", dataDirectory: directory, user: user)
    }

    func container(user: String?) async throws -> Container {
        Container(configuration: configuration(user: user))
    }

    func addAccount(_ name: String, email: String) async throws {
        try await RemoteTestServer.addAccount(name, email: email, container: "iCloud.Conformance", dataDirectory: directory)
    }

    func tearDown() async {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A fresh database on the test cluster; containers open it through ``StoreOpener/postgres(_:)``.
struct PostgresStoreFixture: StoreFixture {
    let fixture: PostgresFixture

    init() async throws {
        fixture = try await PostgresFixture()
        _ = try await fixture.container(user: nil, checksIndexes: true, identifier: "iCloud.Conformance")
            .importSchema(Schema(ckdb: conformanceSchemaText))
    }

    func container(user: String?) async throws -> Container {
        fixture.container(user: user, checksIndexes: true, identifier: "iCloud.Conformance")
    }

    func addAccount(_ name: String, email: String) async throws {
        try await fixture.addAccount(name, email: email, container: "iCloud.Conformance")
    }

    func tearDown() async {}
}

/// A container of its own on one `localcloud serve` that every remote test shares (started once,
/// in this process, on a free loopback port), and remote containers on it: each user signed in
/// with a real web auth token, caching in a client data directory of the fixture's own.
struct RemoteFixture: StoreFixture {
    /// One server for the whole run: a fresh container per test keeps them apart without
    /// starting a server per test.
    static let server = Task { try await RemoteTestServer.start(container: "iCloud.Conformance", schema: conformanceSchemaText, users: []) }

    let server: RemoteTestServer
    let container: (identifier: String, apiToken: String)
    let clientDirectory: URL

    init() async throws {
        server = try await Self.server.value
        let identifier = "iCloud.Conformance\(UUID().uuidString.prefix(8))"
        container = (identifier, try await server.addContainer(identifier, schema: conformanceSchemaText))
        clientDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-client-\(UUID().uuidString)", isDirectory: true)
    }

    func container(user: String?) async throws -> Container {
        Container(configuration: try await server.configuration(user: user, dataDirectory: clientDirectory, container: container))
    }

    func addAccount(_ name: String, email: String) async throws {
        try await RemoteTestServer.addAccount(name, email: email, container: container.identifier, dataDirectory: server.dataDirectory)
    }

    func tearDown() async {
        try? FileManager.default.removeItem(at: server.dataDirectory.appendingPathComponent(container.identifier))
        try? FileManager.default.removeItem(at: clientDirectory)
    }
}

/// A restaurant record with a client-chosen name, as FoodPin saves one.
func restaurant(_ name: String, type: String = "Cafe", recordName: String? = nil) -> Record {
    let record = recordName.map { Record(recordType: "Restaurant", recordID: Record.ID(recordName: $0)) } ?? Record(recordType: "Restaurant")
    record["name"] = name
    record["type"] = type
    return record
}

/// The CloudError `body` fails with, `nil` when it succeeds.
func cloudError(_ body: () async throws -> Void) async -> CloudError? {
    do {
        try await body()
        return nil
    } catch let error as CloudError {
        return error
    } catch {
        return CloudError(.internalError, "not a CloudError: \(error)")
    }
}

/// Waits until `condition` holds or `timeout` passes; returns whether it held.
func poll(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
