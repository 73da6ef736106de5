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

    /// - Parameters:
    ///   - schema: the store's PostgreSQL schema.
    ///   - collationIsC: strings on jsonb compare in code-point order, so a prefix may become an index range.
    static func compile(_ request: QueryRequest, context: StoreContext, schema: String, collationIsC: Bool) throws -> PostgresQueryPlan {
        let compiler = QueryCompiler(dialect: PostgresDialect(schema: schema, collationIsC: collationIsC))
        let compiled = try compiler.compile(request, context: context)
        var statement = PostgresStatement()
        statement.append(compiled.text)
        return PostgresQueryPlan(statement: statement, fieldKeys: compiled.fieldKeys, sortKinds: compiled.sortKinds)
    }
}

extension PostgresStatement {
    /// Appends `fragment`, its `?`s numbered after the values already bound.
    mutating func append(_ fragment: SQLFragment) {
        sql += fragment.numberedSQL(after: binds.count)
        for value in fragment.arguments {
            switch value {
            case .null: binds.appendNull()
            case .integer(let i): binds.append(i)
            case .real(let d): binds.append(d)
            case .text(let s), .json(let s): binds.append(s)
            }
        }
    }
}
