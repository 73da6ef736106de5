import Foundation

/// An app's schema set-up, public: what `cktool import-schema` does for a CloudKit app during
/// development, so an app can bring its `.ckdb` file along without the `localcloud` console.
extension Container {
    /// Merges `ckdb` (CloudKit's schema language) into the development schema when it adds
    /// anything: new types, fields, index flags, grants and roles. Cheap once done (a read and a
    /// parse, no write); two processes may both import, since merging is idempotent.
    ///
    /// ```swift
    /// try await container.importSchemaIfNeeded(ckdb: String(contentsOf: schemaFile, encoding: .utf8))
    /// ```
    /// - Returns: whether the schema changed.
    /// - Throws: `invalidArguments` for text that does not parse, a field whose type differs, or
    ///   in production (whose schema changes only by deploying).
    @discardableResult
    public func importSchemaIfNeeded(ckdb text: String) async throws -> Bool {
        let imported = try Schema(ckdb: text)
        let current = try await schema()
        if try current.merging(imported) == current { return false }
        try await importSchema(imported)
        return true
    }

}
