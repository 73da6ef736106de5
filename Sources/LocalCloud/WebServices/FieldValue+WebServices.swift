import Foundation

/// How the wire names assets: the server says where an asset downloads from and which uploads exist.
package struct AssetWireMapping: Sendable {
    /// The `downloadURL` for an asset's content digest.
    package var downloadURL: @Sendable (_ digest: String) -> String?
    /// Whether an uploaded asset with this digest is in the store (a receipt must name one).
    package var exists: @Sendable (_ digest: String) -> Bool

    package init(downloadURL: @escaping @Sendable (String) -> String?, exists: @escaping @Sendable (String) -> Bool) {
        self.downloadURL = downloadURL
        self.exists = exists
    }

    /// For encoding only, where no receipt is read.
    package static let none = AssetWireMapping(downloadURL: { _ in nil }, exists: { _ in false })
}

// Field values as CloudKit Web Services writes them: `{"value": …, "type": "STRING"}`.
extension FieldValue {
    /// Decodes `{value, type?}`; without `type`, the JSON value decides (integers are INT64).
    ///
    /// - Throws: `invalidArguments` naming `field` when the value does not fit its type.
    init(webServices json: JSONValue, field: String, assets: AssetWireMapping) throws {
        guard let object = json.objectValue, let value = object["value"] else {
            throw CloudError(.invalidArguments, "Field '\(field)' must be an object with a 'value'")
        }
        let type: String?
        switch object["type"] {
        case nil, .null?: type = nil
        case .string(let name)?: type = name
        default: throw CloudError(.invalidArguments, "Field '\(field)': 'type' must be a string")
        }
        self = try Self.decode(value, type: type, field: field, assets: assets)
    }

    /// Record values share the query decoder's scalars; assets are what records add.
    private static func decode(_ value: JSONValue, type: String?, field: String, assets: AssetWireMapping) throws -> FieldValue {
        let path = "fields.\(field).value"
        if let type, type.hasSuffix("_LIST") {
            guard let items = value.arrayValue else { throw QueryValueDecoder.error(path, "must be an array for type \(type)") }
            let itemType = String(type.dropLast(5))
            return .list(try items.map { try decode($0, type: itemType, field: field, assets: assets) })
        }
        switch type {
        case "ASSETID"?, "ASSET"?:
            return try asset(value, at: path, assets: assets)
        case nil:
            if case .object(let object) = value, object["latitude"] == nil, object["recordName"] == nil {
                return try asset(value, at: path, assets: assets)
            }
            if case .array(let items) = value {
                return .list(try items.map { try decode($0, type: nil, field: field, assets: assets) })
            }
            return try QueryValueDecoder.decode(.object(["value": value]), at: "fields.\(field)")
        case let type?:
            if type == "INT64", case .bool(let flag) = value { return .int64(flag ? 1 : 0) }
            return try QueryValueDecoder.scalar(value, type: type, at: path)
        }
    }

    /// `{receipt | fileChecksum, size?}` naming an upload this server holds.
    private static func asset(_ value: JSONValue, at path: String, assets: AssetWireMapping) throws -> FieldValue {
        guard let receipt = (value["receipt"] ?? value["fileChecksum"])?.stringValue else {
            throw QueryValueDecoder.error(path, "needs the 'receipt' that assets/upload returned")
        }
        guard Self.isDigest(receipt), assets.exists(receipt) else {
            throw QueryValueDecoder.error(path + ".receipt", "names no uploaded asset")
        }
        return .asset(Asset(fileURL: nil, contentDigest: receipt, size: value["size"]?.int64Value))
    }

    /// A content digest as the asset store names files: 64 lowercase hex characters.
    static func isDigest(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// `{value, type}` for the wire.
    func webServicesJSON(assets: AssetWireMapping) -> JSONValue {
        .object(["value": webServicesValue(assets: assets), "type": .string(webServicesType)])
    }

    var webServicesType: String {
        switch self {
        case .string: "STRING"
        case .int64, .bool: "INT64"
        case .double: "DOUBLE"
        case .date: "TIMESTAMP"
        case .bytes: "BYTES"
        case .location: "LOCATION"
        case .reference: "REFERENCE"
        case .asset: "ASSETID"
        case .list(let items): (items.first?.webServicesType ?? "STRING") + "_LIST"
        }
    }

    func webServicesValue(assets: AssetWireMapping) -> JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .int64(let i): .int(i)
        case .bool(let b): .int(b ? 1 : 0)
        case .double(let d): .number(d)
        case .date(let d): .int(Int64((d.timeIntervalSince1970 * 1000).rounded()))
        case .bytes(let data): .string(data.base64EncodedString())
        case .location(let l):
            .object(["latitude": .number(l.latitude), "longitude": .number(l.longitude)]
                .merging(l.altitude.map { ["altitude": JSONValue.number($0)] } ?? [:]) { a, _ in a })
        case .reference(let r):
            .object(["recordName": .string(r.recordID.recordName), "zoneID": r.recordID.zoneID.webServicesJSON,
                     "action": .string(r.action == .deleteSelf ? "DELETE_SELF" : "NONE")])
        case .asset(let a):
            .object(Self.assetJSON(a, assets: assets))
        case .list(let items): .array(items.map { $0.webServicesValue(assets: assets) })
        }
    }

    private static func assetJSON(_ asset: Asset, assets: AssetWireMapping) -> [String: JSONValue] {
        var json: [String: JSONValue] = [:]
        if let digest = asset.contentDigest {
            json["fileChecksum"] = .string(digest)
            json["receipt"] = .string(digest)
            if let url = assets.downloadURL(digest) { json["downloadURL"] = .string(url) }
        }
        if let size = asset.size { json["size"] = .int(size) }
        return json
    }
}

extension RecordZone.ID {
    /// `{zoneName, ownerRecordName}`; absent means the default zone.
    init(webServices json: JSONValue?) throws {
        guard let json, json != .null else {
            self = .default
            return
        }
        guard let name = json["zoneName"]?.stringValue, !name.isEmpty else {
            throw CloudError(.invalidArguments, "zoneID needs a zoneName")
        }
        self.init(zoneName: name, ownerName: json["ownerRecordName"]?.stringValue ?? RecordZone.ID.currentUserName)
    }

    var webServicesJSON: JSONValue {
        var json: [String: JSONValue] = ["zoneName": .string(zoneName)]
        if ownerName != RecordZone.ID.currentUserName { json["ownerRecordName"] = .string(ownerName) }
        return .object(json)
    }
}
