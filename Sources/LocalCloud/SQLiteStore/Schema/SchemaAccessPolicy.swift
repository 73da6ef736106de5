import Foundation
import GRDB
import Synchronization

/// The schema and security rules, run inside the store's transaction before every read and write.
///
/// - Saves evolve the development schema just in time, and must fit the production schema.
/// - The public database applies the security roles: READ for fetches and queries,
///   CREATE for new records, WRITE (or `_creator`'s) for changes and deletes.
/// - Queries need the indexes CloudKit would need (when `checksIndexes`).
/// - The account rules of ``AccountAccessPolicy`` apply first.
package final class SchemaAccessPolicy: AccessPolicy {
    let environment: Container.Environment
    let checksIndexes: Bool
    private let cache = Mutex<(stamp: String, schema: Schema)?>(nil)

    init(environment: Container.Environment, checksIndexes: Bool = true) {
        self.environment = environment
        self.checksIndexes = checksIndexes
    }

    func check(_ request: AccessRequest, context: StoreContext, db: GRDB.Database) throws {
        try AccountAccessPolicy().check(request, context: context, db: db)
        let isPublic = context.scope == .public
        let user = context.user
        switch request {
        case let .query(query):
            let recordType = query.recordType
            let schema = try current(db)
            if isPublic {
                try schema.checkPermission(.read, recordType: recordType, user: user, creator: nil)
            }
            try schema.checkListMatches(recordType: recordType, predicate: query.predicate)
            if checksIndexes, schema.recordTypes[recordType] != nil {
                try schema.checkIndexes(recordType: recordType, predicate: query.predicate, sortKeys: query.sort.map(Self.predicateKey))
            }
        case let .fetch(recordType, creator):
            guard isPublic else { return }
            try current(db).checkPermission(.read, recordType: recordType, user: user, creator: Self.userName(creator))
        case let .create(recordType, fields):
            let schema = try evolve(recordType: recordType, fields: fields, db)
            if isPublic {
                try schema.checkPermission(.create, recordType: recordType, user: user, creator: nil)
            }
        case let .update(recordType, creator, fields):
            let schema = try evolve(recordType: recordType, fields: fields, db)
            if isPublic {
                try schema.checkPermission(.write, recordType: recordType, user: user, creator: Self.userName(creator))
            }
        case let .delete(recordType, creator):
            guard isPublic else { return }
            try current(db).checkPermission(.write, recordType: recordType, user: user, creator: Self.userName(creator))
        case .modifyZone:
            return
        }
    }

    /// With index checks on, only SEARCHABLE fields go into the full-text index, as in CloudKit.
    func searchableFields(recordType: String, db: GRDB.Database) throws -> Set<String>? {
        guard checksIndexes else { return nil }
        let type = try current(db).recordTypes[recordType]
        return Set(type?.fields.filter(\.isSearchable).map(\.name) ?? [])
    }

    /// The stored schema, decoded again only when another writer changed it.
    func current(_ db: GRDB.Database) throws -> Schema {
        if let cached = cache.withLock({ $0 }), try SchemaStorage.stamp(db, is: cached.stamp) { return cached.schema }
        let loaded = try SchemaStorage.load(db)
        cache.withLock { $0 = (loaded.stamp, loaded.schema) }
        return loaded.schema
    }

    /// Checks a save against the schema; in development, records new types and fields.
    private func evolve(recordType: String, fields: [String: FieldValue], _ db: GRDB.Database) throws -> Schema {
        let schema = try current(db)
        guard let next = try schema.checkingSave(recordType: recordType, fields: fields, justInTime: environment == .development) else {
            return schema
        }
        try SchemaStorage.save(next, db)
        return next
    }

    /// `_alice` → `alice`: the store keeps creators as user record names.
    package static func userName(_ userRecordName: String) -> String? {
        userRecordName.hasPrefix("_") ? String(userRecordName.dropFirst()) : (userRecordName.isEmpty ? nil : userRecordName)
    }

    package static func predicateKey(_ sort: QuerySortKey) -> PredicateKey {
        if sort.location == nil, let system = SystemField(anyName: sort.key) {
            switch system {
            case .createTime: return .creationDate
            case .modTime: return .modificationDate
            case .recordID: return .recordName
            case .createdBy: return .creatorUserRecordID
            case .modifiedBy: return .lastModifiedUserRecordID
            case .etag: return .field(sort.key)
            }
        }
        return .field(sort.key)
    }
}
