import Foundation

/// Stand-in: replaced by the recursive-descent parser.
enum PredicateParser {
    static func parse(_ format: String, arguments: [Any]) throws -> PredicateNode {
        let trimmed = format.trimmingCharacters(in: .whitespaces)
        if trimmed == "TRUEPREDICATE" { return .truePredicate }
        if trimmed == "FALSEPREDICATE" { return .falsePredicate }
        throw CloudError(.invalidArguments, "unsupported predicate '\(format)'")
    }
}

enum PredicateFormatter {
    static func format(_ node: PredicateNode) -> String {
        switch node {
        case .truePredicate: "TRUEPREDICATE"
        default: "FALSEPREDICATE"
        }
    }
}
