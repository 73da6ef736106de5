import Foundation
import Hummingbird
import LocalCloud
import NIOCore
import Synchronization

// assets/upload, the upload URL it returns, and downloads by `downloadURL`.
extension CloudServer {
    func addAssetRoutes(to router: Router<ServerRequestContext>) {
        onDatabase(router, .post, "assets/upload") { call in try await self.requestUploads(call) }
        router.post("upload/1/:container/:environment/:upload") { request, context in
            try await self.receiveUpload(request, context: context)
        }
        router.get("assets/1/:container/:environment/:digest") { request, context in
            try await self.download(request, context: context)
        }
    }

    /// The wire's view of a container's assets: download URLs on this server, receipts checked against the store.
    ///
    /// Records are decoded synchronously, so the receipts `body` names are looked up first (a
    /// PostgreSQL store reads its database for them) and decoding checks against what was found.
    func assetMapping(container: Container, baseURL: String, containerIdentifier: String,
                      environment: Container.Environment, body: JSONValue) async -> AssetWireMapping {
        let prefix = "\(baseURL)/assets/1/\(containerIdentifier)/\(environment.rawValue)/"
        let known = await Self.heldReceipts(in: body, container: container)
        return AssetWireMapping(downloadURL: { prefix + $0 }, exists: { known.contains($0) })
    }

    /// The asset receipts (`receipt` or `fileChecksum` digests) anywhere in `json` that the store holds.
    static func heldReceipts(in json: JSONValue, container: Container) async -> Set<String> {
        var named: Set<String> = []
        func collect(_ value: JSONValue) {
            if let object = value.objectValue {
                for (key, item) in object {
                    if key == "receipt" || key == "fileChecksum", let digest = item.stringValue { named.insert(digest) }
                    collect(item)
                }
            } else if let items = value.arrayValue {
                items.forEach(collect)
            }
        }
        collect(json)
        var held: Set<String> = []
        for digest in named where await container.assetFileNow(forDigest: digest) != nil { held.insert(digest) }
        return held
    }

    /// `{tokens: [{recordType, fieldName, recordName?}]}` → `{tokens: [{recordName, fieldName, url}]}`.
    func requestUploads(_ call: DatabaseCall) async throws -> JSONValue {
        try call.requireUser("Uploading an asset")
        let tokens = try call.array("tokens", max: Self.maximumItems)
        var issued: [JSONValue] = []
        for (index, token) in tokens.enumerated() {
            guard let field = token["fieldName"]?.stringValue, token["recordType"]?.stringValue != nil else {
                throw ServerError(.badRequest, "tokens[\(index)] needs recordType and fieldName")
            }
            let recordName = token["recordName"]?.stringValue ?? UUID().uuidString
            let upload = try await state.uploads.issue(container: call.containerIdentifier, environment: call.environment)
            let url = "\(call.baseURL)/upload/1/\(call.containerIdentifier)/\(call.environment.rawValue)/\(upload)"
            issued.append(.object(["recordName": .string(recordName), "fieldName": .string(field), "url": .string(url)]))
        }
        return .object(["tokens": .array(issued)])
    }

    /// The bytes of one upload: stored by content, answered with the receipt a record save names.
    func receiveUpload(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let containerIdentifier = try context.parameters.require("container")
        let environment = try Self.environment(context.parameters.require("environment"))
        let upload = try context.parameters.require("upload")
        guard try await state.uploads.redeem(upload, container: containerIdentifier, environment: environment) else {
            throw ServerError(.authenticationFailed, "This upload URL is unknown or expired: request a new one with assets/upload")
        }
        let container = try registry.container(containerIdentifier, environment: environment, user: nil)
        let directory = container.uploadsDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("upload-\(UUID().uuidString).part")
        defer { try? FileManager.default.removeItem(at: file) }
        try await writeBody(request, to: file, limit: configuration.maxAssetBytes)
        let (digest, size) = try await container.importAsset(from: file)
        let single: JSONValue = .object([
            "fileChecksum": .string(digest), "receipt": .string(digest), "size": .int(size),
            "referenceChecksum": .string(digest), "wrappingKey": .string(""),
        ])
        return Self.jsonResponse(JSONValue.object(["singleFile": single]).bytes)
    }

    /// Streams the body to `file`, refusing it with QUOTA_EXCEEDED past `limit` bytes.
    private func writeBody(_ request: Request, to file: URL, limit: Int) async throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: file.path) else {
            throw ServerError(.internalError, "Cannot store the upload")
        }
        defer { try? handle.close() }
        var written = 0
        for try await buffer in request.body {
            written += buffer.readableBytes
            guard written <= limit else {
                throw ServerError(.quotaExceeded, "The asset is larger than \(limit) bytes")
            }
            do {
                try handle.write(contentsOf: Data(buffer.readableBytesView))
            } catch {
                // A full disk is QUOTA_EXCEEDED with its reason, not a 500.
                guard CloudError.isOutOfSpace(error) else { throw error }
                throw ServerError(.quotaExceeded, "The disk is full: could not store the upload. Free some space and try again")
            }
        }
    }

    /// An asset's bytes by content digest.
    func download(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let containerIdentifier = try context.parameters.require("container")
        let environment = try Self.environment(context.parameters.require("environment"))
        let digest = try context.parameters.require("digest")
        let container = try registry.container(containerIdentifier, environment: environment, user: nil)
        guard let url = await container.assetFile(forDigest: digest) else { throw ServerError(.notFound, "No such asset") }
        let data = try Data(contentsOf: url, options: .alwaysMapped)
        return Response(status: .ok,
                        headers: [.contentType: "application/octet-stream", .cacheControl: "private, max-age=31536000, immutable",
                                  .eTag: "\"\(digest)\""],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Upload URLs in this process's memory: single-use, valid for an hour, at most 10,000 outstanding.
/// One node only; nodes sharing a database keep their grants there.
package final class MemoryUploadGrants: UploadGrantStore {
    private struct Grant {
        var container: String
        var environment: Container.Environment
        var expires: ContinuousClock.Instant
    }

    private let grants = Mutex<[String: Grant]>([:])
    package static let lifetime: Duration = .seconds(3600)
    static let capacity = 10_000

    package init() {}

    package func issue(container: String, environment: Container.Environment) -> String {
        let id = Self.newGrantID()
        let now = ContinuousClock.now
        grants.withLock { grants in
            if grants.count >= Self.capacity { grants = grants.filter { $0.value.expires > now } }
            if grants.count >= Self.capacity, let oldest = grants.min(by: { $0.value.expires < $1.value.expires }) {
                grants[oldest.key] = nil
            }
            grants[id] = Grant(container: container, environment: environment, expires: now + Self.lifetime)
        }
        return id
    }

    package func redeem(_ id: String, container: String, environment: Container.Environment) -> Bool {
        grants.withLock { grants in
            guard let grant = grants.removeValue(forKey: id) else { return false }
            return grant.container == container && grant.environment == environment && grant.expires > .now
        }
    }
}
