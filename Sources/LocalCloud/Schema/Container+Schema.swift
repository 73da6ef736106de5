import Foundation
import Synchronization

/// Schema management for the `localcloud` console and app set-up: the CloudKit Console's
/// schema, index, role, deploy and reset pages. Package-level: apps use CloudKit's API.
extension Container {
    /// The schema of this container's environment.
    package func schema() async throws -> Schema {
        try await core.store().loadSchema()
    }

    /// Changes the schema in one transaction and rebuilds the SQL indexes it calls for
    /// (building new ones for the records already stored).
    ///
    /// In production only role membership can change here; everything else comes by ``deploySchema()``.
    ///
    /// - Returns: the schema after the change.
    @discardableResult
    package func updateSchema(_ change: @escaping @Sendable (inout Schema) throws -> Void) async throws -> Schema {
        let environment = configuration.environment
        return try await core.store().updateSchema(rebuildingSearch: configuration.checksIndexes) { current in
            var next = current
            try change(&next)
            if environment == .production && !next.sameDefinition(as: current) {
                throw CloudError(.invalidArguments, "The production schema changes only by deploying from development (localcloud deploy)")
            }
            return next
        }
    }

    /// Merges a text schema into the development schema: new types and fields are added,
    /// the file's index flags and grants replace those of the types it names, and its roles are added.
    ///
    /// - Throws: `CloudError(.invalidArguments)` when a field's type differs, or in production.
    @discardableResult
    package func importSchema(_ imported: Schema) async throws -> Schema {
        guard configuration.environment == .development else {
            throw CloudError(.invalidArguments, "Schema import works on development only; deploy to reach production")
        }
        return try await updateSchema { schema in
            schema = try schema.merging(imported)
        }
    }

    /// Deploys this (development) container's schema to production.
    ///
    /// - Returns: the production schema before and after.
    /// - Throws: `CloudError(.invalidArguments)` for a destructive change, or when called on production.
    package func deploySchema() async throws -> (before: Schema, after: Schema) {
        guard configuration.environment == .development else {
            throw CloudError(.invalidArguments, "Deploy copies development to production; run it with --environment development")
        }
        let development = try await schema()
        var productionConfiguration = configuration
        productionConfiguration.environment = .production
        let production = Container(configuration: productionConfiguration)
        let before = Mutex(Schema())
        let after = try await production.core.store().updateSchema(rebuildingSearch: false) { current in
            before.withLock { $0 = current }
            return try development.deploying(to: current)
        }
        return (before.withLock { $0 }, after)
    }

    /// Wipes the development environment: records, zones, change history, the schema and asset files.
    package func resetDevelopment() async throws {
        guard configuration.environment == .development else {
            throw CloudError(.permissionFailure, "Only the development environment can be reset")
        }
        try await core.store().resetAll()
    }

    /// Counts and sizes for `localcloud status`.
    package func statistics() async throws -> ContainerStatistics {
        try await core.store().statistics()
    }
}

extension Container {
    /// Every record of the given types in one zone of a database, read directly (no query
    /// indexes needed), oldest first: what `localcloud records export` writes out.
    ///
    /// The private database gives the current user's records only.
    package func allRecords(in scope: Database.Scope, zone: RecordZone.ID = .default, types: [String]? = nil) async throws -> [Record] {
        let context = core.context(scope)
        try AccessRules.checkAccount(writes: false, context: context)
        return try await core.store().allRecords(zone: zone, types: types, context: context)
    }
}
