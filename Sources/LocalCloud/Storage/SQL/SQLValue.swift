/// A value bound to a placeholder, before an executor turns it into its driver's type.
package enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// JSON text, bound as `jsonb` where the engine has it.
    case json(String)
}
