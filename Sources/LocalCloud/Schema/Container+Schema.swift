import Foundation

/// Schema management for the `localcloud` console and app set-up: the CloudKit Console's
/// schema, index, role, deploy and reset pages. Package-level: apps use CloudKit's API.
extension Container {
    /// The schema of this container's environment.
    @available(*, noasync, message: "Blocks the calling thread on the store: await the async overload")
    package func schema() throws -> Schema {
        try core.store().loadSchema()
    }

    /// Changes the schema in one transaction and rebuilds the SQL indexes it calls for
    /// (building new ones for the records already stored).
    ///
    /// In production only role membership can change here; everything else comes by ``deploySchema()``.
    ///
    /// - Returns: the schema after the change.
    @discardableResult
    @available(*, noasync, message: "Blocks the calling thread on the store: await the async overload")
    package func updateSchema(_ change: (inout Schema) throws -> Void) throws -> Schema {
        let environment = configuration.environment
        return try core.store().updateSchema(rebuildingSearch: configuration.checksIndexes) { current in
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
    @available(*, noasync, message: "Blocks the calling thread on the store: await the async overload")
    package func importSchema(_ imported: Schema) throws -> Schema {
        guard configuration.environment == .development else {
            throw CloudError(.invalidArguments, "Schema import works on development only; deploy to reach production")
        }
        return try updateSchema { schema in
            schema = try schema.merging(imported)
        }
    }

    /// Deploys this (development) container's schema to production.
    ///
    /// - Returns: the production schema before and after.
    /// - Throws: `CloudError(.invalidArguments)` for a destructive change, or when called on production.
    @available(*, noasync, message: "Blocks the calling thread on the store: await the async overload")
    package func deploySchema() throws -> (before: Schema, after: Schema) {
        guard configuration.environment == .development else {
            throw CloudError(.invalidArguments, "Deploy copies development to production; run it with --environment development")
        }
        let development = try schema()
        var productionConfiguration = configuration
        productionConfiguration.environment = .production
        let production = Container(configuration: productionConfiguration)
        var before = Schema()
        let after = try production.core.store().updateSchema(rebuildingSearch: false) { current in
            before = current
            return try development.deploying(to: current)
        }
        return (before, after)
    }

    /// Wipes the development environment: records, zones, change history, the schema and asset files.
    @available(*, noasync, message: "Blocks the calling thread on the store: await the async overload")
    package func resetDevelopment() throws {
        guard configuration.environment == .development else {
            throw CloudError(.permissionFailure, "Only the development environment can be reset")
        }
        try core.store().resetAll()
    }

    /// Counts and sizes for `localcloud status`.
    @available(*, noasync, message: "Blocks the calling thread on the store: await the async overload")
    package func statistics() throws -> ContainerStatistics {
        try core.store().statistics()
    }
}

extension Container {
    /// Every record of the given types in one zone of a database, read directly (no query
    /// indexes needed), oldest first: what `localcloud records export` writes out.
    ///
    /// The private database gives the current user's records only.
    @available(*, noasync, message: "Blocks the calling thread on the store: await the async overload")
    package func allRecords(in scope: Database.Scope, zone: RecordZone.ID = .default, types: [String]? = nil) throws -> [Record] {
        let context = core.context(scope)
        if scope != .public && context.user == nil {
            throw CloudError(.notAuthenticated, "No account: the \(scope) database needs a signed-in user")
        }
        return try core.store().allRecords(zone: zone, types: types, context: context)
    }
}

/// The same calls from async code: each runs on the database's queue, so a store that waits on a
/// database server (PostgreSQL) or a network never blocks a thread of Swift's cooperative pool.
extension Container {
    package func schema() async throws -> Schema {
        try await offPool { container in try container.schema() }
    }

    @discardableResult
    package func updateSchema(_ change: @escaping @Sendable (inout Schema) throws -> Void) async throws -> Schema {
        try await offPool { container in try container.updateSchema(change) }
    }

    @discardableResult
    package func importSchema(_ imported: Schema) async throws -> Schema {
        try await offPool { container in try container.importSchema(imported) }
    }

    package func deploySchema() async throws -> (before: Schema, after: Schema) {
        try await offPool { container in try container.deploySchema() }
    }

    package func resetDevelopment() async throws {
        try await offPool { container in try container.resetDevelopment() }
    }

    package func statistics() async throws -> ContainerStatistics {
        try await offPool { container in try container.statistics() }
    }

    package func allRecords(in scope: Database.Scope, zone: RecordZone.ID = .default, types: [String]? = nil) async throws -> [Record] {
        try await offPool { container in try container.allRecords(in: scope, zone: zone, types: types) }
    }

    /// Runs a synchronous store call on the public database's queue (its threads are not the pool's).
    private func offPool<Value: Sendable>(_ body: @escaping @Sendable (Container) throws -> Value) async throws -> Value {
        try await publicCloudDatabase.perform { _ in try body(self) }
    }
}
