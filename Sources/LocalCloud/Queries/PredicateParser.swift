import Foundation

/// Parses a predicate format string into a validated ``PredicateNode`` by recursive descent.
///
/// ```
/// predicate   := disjunction END
/// disjunction := conjunction ((OR | ||) conjunction)*     -- only between single-word self CONTAINS
/// conjunction := unary ((AND | &&) unary)*
/// unary       := (NOT | !) unary | '(' disjunction ')' | TRUEPREDICATE | FALSEPREDICATE | comparison
/// comparison  := [ANY] expression operator expression | ALL {list} IN key
/// operator    := == | = | != | <> | < | <= | > | >= | BETWEEN | BEGINSWITH | IN | CONTAINS
/// expression  := key | %K | %@ | literal | {list} | CAST(expression, 'Type') | SELF
///              | distanceToLocation:fromLocation:(expression, expression)
/// ```
/// Everything CloudKit rejects throws `CloudError(.invalidArguments)` naming the part and its offset.
struct PredicateParser {
    private let tokens: [PredicateToken]
    private let arguments: [Any]
    private var position = 0
    private var argumentIndex = 0
    /// Nesting of parentheses, NOTs and CASTs; bounded so hostile input cannot exhaust the stack.
    private var depth = 0
    static let maximumDepth = 100

    private init(tokens: [PredicateToken], arguments: [Any]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    /// Parses `format` with `arguments` substituted for its placeholders.
    ///
    /// - Throws: `CloudError(.invalidArguments)` whose message names the offending part and the predicate.
    static func parse(_ format: String, arguments: [Any]) throws -> PredicateNode {
        do {
            let tokens = try PredicateLexer.tokenize(format)
            var parser = PredicateParser(tokens: tokens, arguments: arguments)
            return try parser.parsePredicate()
        } catch let error as CloudError {
            var error = error
            error.message += " in predicate '\(PredicateRules.clip(format, limit: 200))'"
            throw error
        }
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    private mutating func advance() -> PredicateToken {
        let token = current
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    private func isSymbol(_ symbol: String, _ token: PredicateToken? = nil) -> Bool {
        (token ?? current).kind == .symbol(symbol)
    }

    /// The upper-cased keyword if the current token is a bare word.
    private func keyword(_ token: PredicateToken? = nil) -> String? {
        if case .word(let word) = (token ?? current).kind { return word.uppercased() }
        return nil
    }

    private func unexpected(_ token: PredicateToken, expected: String? = nil) -> CloudError {
        let found = token.kind == .end ? "unexpected end of predicate" : "unexpected token '\(PredicateRules.clip(token.text, limit: 40))' at offset \(token.offset)"
        return PredicateRules.error(expected.map { "\(found), expected \($0)" } ?? found)
    }

    private mutating func expectSymbol(_ symbol: String, context: String) throws {
        guard isSymbol(symbol) else { throw unexpected(current, expected: "'\(symbol)' \(context)") }
        _ = advance()
    }

    // MARK: Predicates

    private mutating func parsePredicate() throws -> PredicateNode {
        if current.kind == .end { throw PredicateRules.error("empty predicate") }
        let node = try parseDisjunction()
        guard current.kind == .end else {
            if isSymbol(")") { throw PredicateRules.error("unbalanced parentheses: unexpected ')' at offset \(current.offset)") }
            throw unexpected(current, expected: "AND or the end of the predicate")
        }
        if argumentIndex < arguments.count {
            throw PredicateRules.error("too many arguments: the format uses \(argumentIndex) but \(arguments.count) were given")
        }
        return node
    }

    /// CloudKit has no OR, except that an OR of single-word `self CONTAINS` searches is its
    /// any-word token search (CONTAINS_ANY_TOKENS in CloudKit Web Services).
    private mutating func parseDisjunction() throws -> PredicateNode {
        let first = try parseConjunction()
        guard keyword() == "OR" || isSymbol("||") else { return first }
        let or = current
        var texts: [String] = []
        var node = first
        while true {
            switch node {
            case .textSearch(let text): texts.append(text)
            case .textSearchAny(let more): texts.append(contentsOf: more)
            default: throw orError(or)
            }
            guard keyword() == "OR" || isSymbol("||") else { break }
            _ = advance()
            node = try parseConjunction()
        }
        do {
            return try PredicateRules.textSearchAny(texts)
        } catch {
            throw orError(or)
        }
    }

    private func orError(_ or: PredicateToken) -> CloudError {
        PredicateRules.error("unsupported operator \(or.text) at offset \(or.offset): CloudKit predicates cannot use OR, except between single-word 'self CONTAINS' searches")
    }

    private mutating func parseConjunction() throws -> PredicateNode {
        var nodes = [try parseUnary()]
        while true {
            if keyword() == "AND" || isSymbol("&&") {
                _ = advance()
                nodes.append(try parseUnary())
            } else {
                return PredicateRules.and(nodes)
            }
        }
    }

    private mutating func enter() throws {
        depth += 1
        if depth > Self.maximumDepth {
            throw PredicateRules.error("predicate nests more than \(Self.maximumDepth) levels deep at offset \(current.offset)")
        }
    }

    private mutating func parseUnary() throws -> PredicateNode {
        try enter()
        defer { depth -= 1 }
        if keyword() == "NOT" || isSymbol("!") {
            let not = advance()
            do {
                return try PredicateRules.not(try parseUnary())
            } catch let error as CloudError where error.message.hasPrefix("NOT ") {
                throw PredicateRules.error("\(error.message) (\(not.text) at offset \(not.offset))")
            }
        }
        if isSymbol("(") {
            let open = advance()
            let node = try parseDisjunction()
            guard isSymbol(")") else {
                if current.kind == .end {
                    throw PredicateRules.error("unbalanced parentheses: '(' at offset \(open.offset) is never closed")
                }
                throw unexpected(current, expected: "')' to close '(' at offset \(open.offset)")
            }
            _ = advance()
            return node
        }
        switch keyword() {
        case "TRUEPREDICATE": _ = advance(); return .truePredicate
        case "FALSEPREDICATE": _ = advance(); return .falsePredicate
        default: return try parseComparison()
        }
    }

    // MARK: Comparisons

    private enum Operator {
        case compare(ComparisonOperator)
        case between, beginsWith, `in`, contains
        /// `self CONTAINS_AS_TYPED`: LocalCloud's search as you type, not CloudKit's.
        case containsAsTyped
    }

    private mutating func parseComparison() throws -> PredicateNode {
        let start = current
        var any = false, all = false
        switch keyword() {
        case "ANY":
            _ = advance()
            any = true
        case "ALL":
            _ = advance()
            all = true
        case "SOME", "NONE":
            throw PredicateRules.error("\(start.text.uppercased()) is not supported (offset \(start.offset)); CloudKit matches list fields with 'listField CONTAINS value'")
        default: break
        }
        let lhs = try parseExpression()
        let opToken = current
        let op = try parseOperator()
        let rhs = try parseExpression()
        let where_ = "\(opToken.text) at offset \(opToken.offset)"

        if any {
            switch (lhs, op, rhs) {
            case let (.key(key), .compare(.equal), .value(value)): return try PredicateRules.listContains(key, value)
            case let (.key(key), .in, .value(list)): return try PredicateRules.listContainsAny(key, list)
            case let (.key(key), .beginsWith, .value(prefix)): return try PredicateRules.listMemberBeginsWith(key, prefix)
            default:
                throw PredicateRules.error("ANY is supported only as 'ANY listField == value', 'ANY listField IN {values}' or 'ANY listField BEGINSWITH prefix' (offset \(start.offset))")
            }
        }
        if all {
            // `ALL {a, b} IN tags`: every value is in the list field.
            guard case .value(let list) = lhs, case .in = op, case .key(let key) = rhs else {
                throw PredicateRules.error("ALL is supported only as 'ALL {values} IN listField' (offset \(start.offset))")
            }
            return try PredicateRules.listContainsAll(key, list)
        }

        switch (op, lhs, rhs) {
        case let (.compare(op), .key(key), .value(value)):
            return try PredicateRules.comparison(key, op, value)
        case let (.compare(op), .value(value), .key(key)):
            return try PredicateRules.comparison(key, op.flipped, value)
        case let (.compare(op), .distance(key, location), .value(km)):
            return try PredicateRules.distance(key, location, op, km)
        case let (.compare(op), .value(km), .distance(key, location)):
            return try PredicateRules.distance(key, location, op.flipped, km)
        case (.compare, .key, .key):
            throw PredicateRules.error("comparing two keys is not supported (\(where_)); compare a key with a value")
        case (.between, .key(let key), .value(let bounds)):
            guard case .list(let items) = bounds, items.count == 2 else {
                throw PredicateRules.error("BETWEEN needs exactly two values, such as {1, 5} (\(where_))")
            }
            return try PredicateRules.between(key, items[0], items[1])
        case (.beginsWith, .key(let key), .value(let value)):
            return try PredicateRules.beginsWith(key, value)
        case (.in, .key(let key), .value(let list)):
            return try PredicateRules.in(key, list)
        case (.in, .value(let value), .key(let key)):
            return try PredicateRules.listContains(key, value)
        case (.contains, .selfObject, .value(let value)):
            return try PredicateRules.textSearch(value)
        case (.containsAsTyped, .selfObject, .value(let value)):
            return try PredicateRules.textSearch(asTyped: value)
        case (.containsAsTyped, _, _):
            throw PredicateRules.error("CONTAINS_AS_TYPED can only be used as 'self CONTAINS_AS_TYPED \"text\"' (\(where_))")
        case (.contains, .key(let key), .value(let value)):
            return try PredicateRules.listContains(key, value)
        case (_, .selfObject, _), (_, _, .selfObject):
            throw PredicateRules.error("self can only be used as 'self CONTAINS \"text\"' (\(where_))")
        case (_, .distance, _), (_, _, .distance):
            throw PredicateRules.error("distanceToLocation:fromLocation: must be compared with <, <=, > or >= and a number of kilometres (\(where_))")
        case (.compare, .value, .value):
            throw PredicateRules.error("comparison \(where_) needs a key on one side")
        default:
            throw PredicateRules.error("\(opToken.text.uppercased()) needs a key on the left and a value on the right (offset \(opToken.offset))")
        }
    }

    private mutating func parseOperator() throws -> Operator {
        let token = current
        let op: Operator
        switch token.kind {
        case .symbol("=="), .symbol("="): op = .compare(.equal)
        case .symbol("!="), .symbol("<>"): op = .compare(.notEqual)
        case .symbol("<"): op = .compare(.less)
        case .symbol("<="), .symbol("=<"): op = .compare(.lessOrEqual)
        case .symbol(">"): op = .compare(.greater)
        case .symbol(">="), .symbol("=>"): op = .compare(.greaterOrEqual)
        case .word:
            switch keyword(token) {
            case "BETWEEN": op = .between
            case "BEGINSWITH": op = .beginsWith
            case "IN": op = .in
            case "CONTAINS": op = .contains
            case "CONTAINS_AS_TYPED": op = .containsAsTyped
            case "ENDSWITH", "LIKE", "MATCHES":
                throw PredicateRules.error("\(token.text.uppercased()) is not supported (offset \(token.offset)); CloudKit allows ==, !=, <, <=, >, >=, BETWEEN, BEGINSWITH, IN and CONTAINS")
            case "OR":
                throw PredicateRules.error("unsupported operator OR at offset \(token.offset): CloudKit predicates cannot use OR")
            default:
                throw unexpected(token, expected: "an operator such as ==, <, IN, BEGINSWITH or CONTAINS")
            }
        case .symbol("+"), .symbol("-"), .symbol("*"), .symbol("/"), .symbol("**"):
            throw PredicateRules.error("arithmetic is not supported ('\(token.text)' at offset \(token.offset))")
        default:
            throw unexpected(token, expected: "an operator such as ==, <, IN, BEGINSWITH or CONTAINS")
        }
        _ = advance()
        if isSymbol("[") {
            let open = advance()
            var modifier = ""
            while !isSymbol("]"), current.kind != .end { modifier += advance().text }
            throw PredicateRules.error("comparison modifier [\(PredicateRules.clip(modifier, limit: 20))] at offset \(open.offset) is not supported: CloudKit comparisons are case- and diacritic-sensitive")
        }
        return op
    }

    // MARK: Expressions

    private enum Expression {
        case key(PredicateKey)
        case value(FieldValue)
        case selfObject
        case distance(PredicateKey, FieldValue)
    }

    private static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
        "TRUEPREDICATE", "FALSEPREDICATE", "ANY", "ALL", "SOME", "NONE", "SUBQUERY", "FUNCTION",
        "TRUE", "FALSE", "YES", "NO", "NULL", "NIL", "SELF", "CAST",
    ]

    /// Whether a field name must be written `#name` to be read as a key.
    static func isReserved(_ word: String) -> Bool {
        reservedWords.contains(word.uppercased())
    }

    private mutating func parseExpression() throws -> Expression {
        let expression = try parsePrimary()
        switch current.kind {
        case .symbol("+"), .symbol("-"), .symbol("*"), .symbol("/"), .symbol("**"):
            throw PredicateRules.error("arithmetic is not supported ('\(current.text)' at offset \(current.offset))")
        default:
            return expression
        }
    }

    private mutating func parsePrimary() throws -> Expression {
        try enter()
        defer { depth -= 1 }
        let token = current
        switch token.kind {
        case .word(let word):
            if word.contains(":") { return try parseFunction() }
            switch word.uppercased() {
            case "TRUE", "YES": _ = advance(); return .value(.bool(true))
            case "FALSE", "NO": _ = advance(); return .value(.bool(false))
            case "SELF": _ = advance(); return .selfObject
            case "CAST": return try parseCast()
            case "NULL", "NIL":
                throw PredicateRules.error("\(word) at offset \(token.offset) is not supported: CloudKit predicates cannot compare with nil")
            case "ANY", "ALL", "SOME", "NONE":
                throw PredicateRules.error("\(word.uppercased()) is not supported here (offset \(token.offset))")
            case "SUBQUERY", "FUNCTION":
                throw PredicateRules.error("\(word.uppercased()) expressions are not supported (offset \(token.offset))")
            default:
                if Self.isReserved(word) { throw unexpected(token, expected: "a key or a value") }
                _ = advance()
                return .key(try parseKeyRest(word, at: token))
            }
        case .escapedWord(let word):
            _ = advance()
            return .key(try parseKeyRest(word, at: token))
        case .string(let string):
            _ = advance()
            return .value(.string(string))
        case .number(let text):
            _ = advance()
            return .value(try Self.number(text, negative: false, at: token))
        case .symbol("-"):
            _ = advance()
            guard case .number(let text) = current.kind else {
                throw PredicateRules.error("arithmetic is not supported ('-' at offset \(token.offset))")
            }
            let number = advance()
            return .value(try Self.number(text, negative: true, at: number))
        case .symbol("{"):
            return .value(try parseList())
        case .placeholder("K"):
            _ = advance()
            let argument = try nextArgument(for: token)
            guard let name = argument as? String ?? (argument as? Substring).map(String.init) else {
                throw PredicateRules.error("%K at offset \(token.offset) needs a String key name, not \(type(of: argument))")
            }
            return .key(try PredicateRules.key(named: name))
        case .placeholder(let spec):
            _ = advance()
            let value = try PredicateRules.value(fromArgument: try nextArgument(for: token), position: argumentIndex)
            if spec != "@" {
                switch value {
                case .int64, .double, .bool: break
                default: throw PredicateRules.error("%\(spec) at offset \(token.offset) needs a number, not \(PredicateRules.describeType(value))")
                }
            }
            return .value(value)
        case .variable(let name):
            throw PredicateRules.error("variables such as $\(PredicateRules.clip(name, limit: 40)) (offset \(token.offset)) are not supported; pass values as %@ arguments")
        case .symbol("@"):
            throw PredicateRules.error("aggregate expressions such as @count are not supported (offset \(token.offset))")
        default:
            throw unexpected(token, expected: "a key or a value")
        }
    }

    /// Rejects what may follow a key: key paths (`a.b`), function calls (`f(x)`) and subscripts (`a[0]`).
    private mutating func parseKeyRest(_ name: String, at token: PredicateToken) throws -> PredicateKey {
        if isSymbol(".") {
            _ = advance()
            let rest = current.text
            throw PredicateRules.error("key paths are not supported: '\(PredicateRules.clip(name, limit: 40)).\(PredicateRules.clip(rest, limit: 40))' at offset \(token.offset)")
        }
        if isSymbol("(") {
            throw PredicateRules.error("function '\(PredicateRules.clip(name, limit: 40))' at offset \(token.offset) is not supported")
        }
        if isSymbol("[") {
            throw PredicateRules.error("subscripts such as '\(PredicateRules.clip(name, limit: 40))[…]' are not supported (offset \(token.offset))")
        }
        return try PredicateRules.key(named: name)
    }

    private mutating func nextArgument(for token: PredicateToken) throws -> Any {
        guard argumentIndex < arguments.count else {
            throw PredicateRules.error("not enough arguments: \(token.text) at offset \(token.offset) needs argument \(argumentIndex + 1) but \(arguments.count) were given")
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    private mutating func parseList() throws -> FieldValue {
        let open = advance()
        var items: [FieldValue] = []
        if isSymbol("}") {
            _ = advance()
            return .list(items)
        }
        while true {
            let itemToken = current
            guard case .value(let value) = try parseExpression() else {
                throw PredicateRules.error("list at offset \(open.offset) may hold only values, not '\(PredicateRules.clip(itemToken.text, limit: 40))' at offset \(itemToken.offset)")
            }
            if case .list = value {
                throw PredicateRules.error("nested lists are not supported (offset \(itemToken.offset))")
            }
            items.append(value)
            if isSymbol(",") {
                _ = advance()
                continue
            }
            if isSymbol("}") {
                _ = advance()
                return .list(items)
            }
            if current.kind == .end {
                throw PredicateRules.error("unbalanced braces: '{' at offset \(open.offset) is never closed")
            }
            throw unexpected(current, expected: "',' or '}' in the list starting at offset \(open.offset)")
        }
    }

    /// `distanceToLocation:fromLocation:(key, location)`, either argument order.
    private mutating func parseFunction() throws -> Expression {
        let name = advance()
        guard name.text.lowercased() == "distancetolocation:fromlocation:" else {
            throw PredicateRules.error("function '\(PredicateRules.clip(name.text, limit: 60))' at offset \(name.offset) is not supported; only distanceToLocation:fromLocation: is")
        }
        try expectSymbol("(", context: "after distanceToLocation:fromLocation:")
        let first = try parseExpression()
        try expectSymbol(",", context: "between the arguments of distanceToLocation:fromLocation:")
        let second = try parseExpression()
        try expectSymbol(")", context: "to close distanceToLocation:fromLocation:(")
        switch (first, second) {
        case let (.key(key), .value(location)), let (.value(location), .key(key)):
            return .distance(key, location)
        default:
            throw PredicateRules.error("distanceToLocation:fromLocation: at offset \(name.offset) needs a location field and a Location")
        }
    }

    /// `CAST(value, 'Type')`: `NSDate` from seconds since 2001, and the forms ``PredicateFormatter`` writes.
    private mutating func parseCast() throws -> Expression {
        let cast = advance()
        try expectSymbol("(", context: "after CAST")
        let valueToken = current
        guard case .value(let value) = try parseExpression() else {
            throw PredicateRules.error("CAST at offset \(cast.offset) needs a value, not '\(PredicateRules.clip(valueToken.text, limit: 40))'")
        }
        try expectSymbol(",", context: "in CAST")
        guard case .string(let typeName) = current.kind else {
            throw unexpected(current, expected: "a type name string such as 'NSDate' in CAST")
        }
        _ = advance()
        try expectSymbol(")", context: "to close CAST(")
        let bad = PredicateRules.error("CAST of \(PredicateRules.describeType(value)) to '\(PredicateRules.clip(typeName, limit: 40))' at offset \(cast.offset) is not supported")
        switch (typeName, value) {
        case ("NSDate", .int64(let seconds)): return .value(.date(Date(timeIntervalSinceReferenceDate: Double(seconds))))
        case ("NSDate", .double(let seconds)): return .value(.date(Date(timeIntervalSinceReferenceDate: seconds)))
        case ("NSDate", .date), ("NSNumber", .int64), ("NSNumber", .double): return .value(value)
        case ("NSData", .string(let base64)):
            guard let data = Data(base64Encoded: base64) else { throw bad }
            return .value(.bytes(data))
        case ("CLLocation", .string(let text)):
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2 || parts.count == 3, let latitude = parts[0], let longitude = parts[1] else { throw bad }
            var altitude: Double?
            if parts.count == 3 {
                guard let a = parts[2] else { throw bad }
                altitude = a
            }
            let location = Location(latitude: latitude, longitude: longitude, altitude: altitude)
            guard location.isFinite else { throw bad }
            return .value(.location(location))
        case ("CKReference", .string(let json)):
            guard let reference = try? JSONDecoder().decode(Record.Reference.self, from: Data(json.utf8)) else { throw bad }
            return .value(.reference(reference))
        default:
            throw bad
        }
    }

    private static func number(_ text: String, negative: Bool, at token: PredicateToken) throws -> FieldValue {
        let lower = text.lowercased()
        if lower.hasPrefix("0x") {
            guard let magnitude = UInt64(lower.dropFirst(2), radix: 16),
                  let value = negative ? (magnitude == UInt64(Int64.max) + 1 ? Int64.min : Int64(exactly: magnitude).map { -$0 }) : Int64(exactly: magnitude)
            else {
                throw PredicateRules.error("number '\(text)' at offset \(token.offset) is not a valid 64-bit integer")
            }
            return .int64(value)
        }
        let signed = negative ? "-" + text : text
        if lower.contains(".") || lower.contains("e") {
            guard let value = Double(signed), value.isFinite else {
                throw PredicateRules.error("number '\(text)' at offset \(token.offset) is out of range")
            }
            return .double(value)
        }
        guard let value = Int64(signed) else {
            throw PredicateRules.error("number '\(text)' at offset \(token.offset) does not fit in a 64-bit integer")
        }
        return .int64(value)
    }
}

extension ComparisonOperator {
    /// The operator that means the same with its operands swapped: `5 < x` is `x > 5`.
    var flipped: ComparisonOperator {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }
}
