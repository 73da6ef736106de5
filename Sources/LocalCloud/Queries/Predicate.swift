import Foundation

// Stand-in until the predicate parser branch merges; that branch replaces this file.
public final class Predicate {
    let constant: Bool?
    let format: String?
    let arguments: [Any]

    public init(value: Bool) {
        constant = value
        format = nil
        arguments = []
    }

    public convenience init(format: String, _ args: Any...) {
        self.init(format: format, argumentArray: args)
    }

    public init(format: String, argumentArray: [Any]?) {
        constant = nil
        self.format = format
        arguments = argumentArray ?? []
    }

    func validatedNode() throws -> PredicateNode {
        if let constant { return constant ? .truePredicate : .falsePredicate }
        throw CloudError(.invalidArguments, "Predicate format parsing is not available in this build: \(format ?? "")")
    }
}
