import Foundation
import LocalCloud
import PostgresNIO

/// A query compiled for PostgreSQL (``QueryCompiler`` with ``PostgresDialect``) and ready to
/// run: the statement, the fields to decode, and how each sort value is read into a cursor.
struct PostgresQueryPlan {
    var statement: PostgresStatement
    var fieldKeys: [String]?
    /// Sort values follow the record columns; each is read back into the next cursor's anchor.
    var sortKinds: [SortValueKind]
    /// Run as a statement prepared per connection: only a query with no filter (the Discover page
    /// and its next pages), whose generic plan is the custom one; a filter's plan depends on how
    /// rare its value is, which a generic plan does not see.
    var prepares: Bool

    /// - Parameters:
    ///   - schema: the store's PostgreSQL schema.
    ///   - collationIsC: strings on jsonb compare in code-point order, so a prefix may become an index range.
    static func compile(_ request: QueryRequest, context: StoreContext, schema: String, collationIsC: Bool) throws -> PostgresQueryPlan {
        let compiler = QueryCompiler(dialect: PostgresDialect(schema: schema, collationIsC: collationIsC))
        let compiled = try compiler.compile(request, context: context)
        var statement = PostgresStatement()
        statement.append(compiled.text)
        return PostgresQueryPlan(statement: statement, fieldKeys: compiled.fieldKeys, sortKinds: compiled.sortKinds,
                                 prepares: !compiled.isFiltered)
    }
}

extension PostgresStatement {
    /// Appends `fragment`, its `?`s numbered after the values already bound.
    mutating func append(_ fragment: SQLFragment) {
        sql += fragment.numberedSQL(after: binds.count)
        for value in fragment.arguments {
            switch value {
            case .null: _ = bindNull()
            case .integer(let i): _ = bind(i)
            case .real(let d): _ = bind(d)
            case .text(let s), .json(let s): _ = bind(s)
            }
        }
    }
}
