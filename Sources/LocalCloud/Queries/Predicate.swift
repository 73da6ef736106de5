import Foundation

/// A query condition in CloudKit's `NSPredicate` dialect, like the `NSPredicate` a `CKQuery` takes.
///
/// ```swift
/// let p = Predicate(format: "type == %@ AND rating >= %@", "Thai", 3)
/// let q = Query(recordType: "Restaurant", predicate: p)
/// ```
///
/// Only the forms CloudKit's CKQuery documentation allows are accepted, plus the list and token
/// matches CloudKit Web Services has (`ANY tags IN {…}`, `ALL {…} IN tags`, `ANY tags BEGINSWITH 'p'`,
/// and `self CONTAINS 'a' OR self CONTAINS 'b'`, the only OR). The format is
/// parsed once, here; a malformed or unsupported format never crashes: the error is
/// remembered and surfaces as `CloudError(.invalidArguments)` when the query runs.
///
/// Foundation also declares a `Predicate`. Expressions such as `Predicate(format:)` resolve to
/// this one, but in type annotations a file importing both modules writes `LocalCloud.Predicate`
/// (or declares `typealias Predicate = LocalCloud.Predicate` once in its module).
public final class Predicate: Sendable, CustomStringConvertible {
    /// The parsed predicate, or why it could not be parsed.
    let parsed: Result<PredicateNode, CloudError>
    /// The format as written, kept to describe a predicate that failed to parse.
    private let source: String

    /// A predicate that matches every record (`true`) or none (`false`).
    public init(value: Bool) {
        parsed = .success(value ? .truePredicate : .falsePredicate)
        source = value ? "TRUEPREDICATE" : "FALSEPREDICATE"
    }

    /// Parses `format`, substituting `%@` (values) and `%K` (keys) from `args` in order.
    public convenience init(format: String, _ args: Any...) {
        self.init(format: format, argumentArray: args)
    }

    /// Parses `format`, substituting `%@` (values) and `%K` (keys) from `argumentArray` in order.
    public init(format: String, argumentArray: [Any]?) {
        source = format
        parsed = Result { try PredicateParser.parse(format, arguments: argumentArray ?? []) }
            .mapError { $0 as? CloudError ?? CloudError(.invalidArguments, "\($0)") }
    }

    /// A predicate from the typed builder: `build` applies the same rules as the parser.
    init(building build: () throws -> PredicateNode) {
        do {
            parsed = .success(try build())
            source = ""
        } catch {
            let error = error as? CloudError ?? PredicateRules.error("\(error)")
            parsed = .failure(error)
            source = "<invalid predicate: \(error.message)>"
        }
    }

    /// The predicate in format-string form, with arguments substituted.
    ///
    /// Parsing this string again yields the same predicate. For a format that failed to
    /// parse, this is the format as written.
    public var predicateFormat: String {
        switch parsed {
        case .success(let node): PredicateFormatter.format(node)
        case .failure: source
        }
    }

    public var description: String { predicateFormat }

    /// The validated predicate tree the query compiler works from.
    ///
    /// - Throws: `CloudError(.invalidArguments)` naming the part of the format that CloudKit would reject.
    func validatedNode() throws -> PredicateNode {
        try parsed.get()
    }
}
