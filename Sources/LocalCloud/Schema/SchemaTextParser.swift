import Foundation

/// Reads CloudKit's text schema language, as in cktool's `.ckdb` files.
///
/// ```
/// DEFINE SCHEMA
///     CREATE ROLE Moderator;
///     RECORD TYPE Restaurant (
///         "___recordID" REFERENCE QUERYABLE,
///         name STRING QUERYABLE SORTABLE SEARCHABLE,
///         tags LIST<STRING>,
///         GRANT READ, WRITE TO "_creator",
///         GRANT READ TO "_world"
///     );
/// ```
///
/// Keywords are case-insensitive; names may be double-quoted; `--` and `//` start comments.
/// System fields a type leaves out are added unindexed. Every error names its line and column.
struct SchemaTextParser {
    struct Token: Equatable {
        enum Kind: Equatable {
            case word(String)
            case quoted(String)
            case symbol(Character)
            case end
        }
        var kind: Kind
        var line: Int
        var column: Int

        var text: String {
            switch kind {
            case .word(let w): w
            case .quoted(let q): "\"\(q)\""
            case .symbol(let c): String(c)
            case .end: "end of input"
            }
        }
    }

    private var tokens: [Token]
    private var position = 0

    /// Parses a whole schema.
    ///
    /// - Throws: `CloudError(.invalidArguments)` "Schema text, line L, column C: …".
    static func parse(_ text: String) throws -> Schema {
        var parser = SchemaTextParser(tokens: try tokenize(text))
        return try parser.parseSchema()
    }

    private init(tokens: [Token]) {
        self.tokens = tokens
    }

    // MARK: Tokens

    static func tokenize(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        let chars = Array(text)
        var i = 0, line = 1, column = 1
        func advance() {
            if chars[i] == "\n" { line += 1; column = 1 } else { column += 1 }
            i += 1
        }
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace { advance(); continue }
            let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
            if (c == "-" && next == "-") || (c == "/" && next == "/") {
                while i < chars.count && chars[i] != "\n" { advance() }
                continue
            }
            let startLine = line, startColumn = column
            if c == "\"" {
                advance()
                var value = ""
                while true {
                    guard i < chars.count, chars[i] != "\n" else {
                        throw error("unterminated quoted name", line: startLine, column: startColumn)
                    }
                    if chars[i] == "\"" {
                        if i + 1 < chars.count && chars[i + 1] == "\"" { value.append("\""); advance(); advance(); continue }
                        advance()
                        break
                    }
                    value.append(chars[i])
                    advance()
                }
                tokens.append(Token(kind: .quoted(value), line: startLine, column: startColumn))
            } else if c.isLetter || c == "_" || c.isNumber {
                var word = ""
                while i < chars.count && (chars[i].isLetter || chars[i].isNumber || chars[i] == "_") {
                    word.append(chars[i])
                    advance()
                }
                tokens.append(Token(kind: .word(word), line: startLine, column: startColumn))
            } else if "(),;<>".contains(c) {
                tokens.append(Token(kind: .symbol(c), line: startLine, column: startColumn))
                advance()
            } else {
                throw error("unexpected character '\(c)'", line: startLine, column: startColumn)
            }
        }
        tokens.append(Token(kind: .end, line: line, column: column))
        return tokens
    }

    static func error(_ message: String, line: Int, column: Int) -> CloudError {
        CloudError(.invalidArguments, "Schema text, line \(line), column \(column): \(message)")
    }

    private func error(_ message: String, at token: Token) -> CloudError {
        Self.error(message, line: token.line, column: token.column)
    }

    private var current: Token { tokens[min(position, tokens.count - 1)] }

    private mutating func next() -> Token {
        let token = current
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    private func isKeyword(_ keyword: String, _ token: Token? = nil) -> Bool {
        if case .word(let w) = (token ?? current).kind { return w.uppercased() == keyword }
        return false
    }

    private mutating func expectKeyword(_ keyword: String, _ context: String) throws {
        guard isKeyword(keyword) else {
            throw error("expected \(keyword) \(context), found \(current.text)", at: current)
        }
        _ = next()
    }

    private mutating func expectSymbol(_ symbol: Character, _ context: String) throws {
        guard current.kind == .symbol(symbol) else {
            throw error("expected '\(symbol)' \(context), found \(current.text)", at: current)
        }
        _ = next()
    }

    private mutating func name(_ what: String) throws -> (String, Token) {
        let token = next()
        switch token.kind {
        case .word(let w), .quoted(let w):
            guard !w.isEmpty else { throw error("expected \(what), found an empty name", at: token) }
            return (w, token)
        default:
            throw error("expected \(what), found \(token.text)", at: token)
        }
    }

    // MARK: Grammar

    private mutating func parseSchema() throws -> Schema {
        try expectKeyword("DEFINE", "at the start of the schema")
        try expectKeyword("SCHEMA", "after DEFINE")
        var schema = Schema()
        var grantRoles: [(String, Token)] = []
        while current.kind != .end {
            if isKeyword("CREATE") {
                _ = next()
                try expectKeyword("ROLE", "after CREATE")
                let (role, token) = try name("a role name")
                guard SecurityRole.isValidCustomName(role) else {
                    throw error("invalid role name '\(role)': custom roles start with a letter", at: token)
                }
                guard !schema.roles.contains(role) else { throw error("role '\(role)' is created twice", at: token) }
                schema.roles.insert(role)
                try expectSymbol(";", "after CREATE ROLE \(role)")
            } else if isKeyword("RECORD") {
                _ = next()
                try expectKeyword("TYPE", "after RECORD")
                let (typeName, token) = try name("a record type name")
                do { try Schema.validateName(typeName, what: "Record type") } catch let e as CloudError {
                    throw error(e.message, at: token)
                }
                guard schema.recordTypes[typeName] == nil else {
                    throw error("record type '\(typeName)' is defined twice", at: token)
                }
                let (type, roles) = try parseRecordType(typeName)
                schema.recordTypes[typeName] = type
                grantRoles += roles
            } else {
                throw error("expected RECORD TYPE or CREATE ROLE, found \(current.text)", at: current)
            }
        }
        for (role, token) in grantRoles where !SecurityRole.builtIn.contains(role) && !schema.roles.contains(role) {
            throw error("GRANT to unknown role '\(role)': create it with CREATE ROLE \(role);", at: token)
        }
        return schema
    }

    private mutating func parseRecordType(_ typeName: String) throws -> (RecordTypeSchema, [(String, Token)]) {
        try expectSymbol("(", "after RECORD TYPE \(typeName)")
        var fields: [FieldSchema] = []
        var grants: [String: Permissions] = [:]
        var roles: [(String, Token)] = []
        while true {
            if current.kind == .symbol(")") { break }
            if isKeyword("GRANT") {
                _ = next()
                var permissions: Permissions = []
                while true {
                    let token = next()
                    guard case .word(let w) = token.kind, let permission = Permissions(keyword: w) else {
                        throw error("expected READ, CREATE or WRITE after GRANT, found \(token.text)", at: token)
                    }
                    permissions.insert(permission)
                    guard current.kind == .symbol(",") else { break }
                    _ = next()
                }
                try expectKeyword("TO", "after the permissions of GRANT")
                let (role, token) = try name("a role name in quotes")
                grants[role, default: []].formUnion(permissions)
                roles.append((role, token))
            } else {
                let field = try parseField(typeName)
                if fields.contains(where: { $0.name == field.name }) {
                    throw error("field '\(field.name)' is defined twice in \(typeName)", at: tokens[position - 1])
                }
                fields.append(field)
            }
            if current.kind == .symbol(",") { _ = next(); continue }
            guard current.kind == .symbol(")") else {
                throw error("expected ',' or ')' in RECORD TYPE \(typeName), found \(current.text)", at: current)
            }
        }
        try expectSymbol(")", "closing RECORD TYPE \(typeName)")
        try expectSymbol(";", "after RECORD TYPE \(typeName) ( … )")
        return (RecordTypeSchema(name: typeName, fields: fields, grants: grants), roles)
    }

    private mutating func parseField(_ typeName: String) throws -> FieldSchema {
        let (fieldName, nameToken) = try name("a field name or GRANT")
        let system = SystemField(storedName: fieldName)
        if system == nil {
            if fieldName.hasPrefix("_") {
                throw error("unknown system field '\(fieldName)'", at: nameToken)
            }
            do { try Schema.validateName(fieldName, what: "Field name") } catch let e as CloudError {
                throw error(e.message, at: nameToken)
            }
        }
        let typeToken = current
        let type = try parseType()
        if let system, type != system.type {
            throw error("system field '\(fieldName)' has type \(system.type), not \(type)", at: typeToken)
        }
        var field = FieldSchema(name: fieldName, type: type)
        while case .word(let w) = current.kind, let kind = IndexKind(rawValue: w.lowercased()) {
            let token = next()
            let allowed = system.map { $0.allows(kind) } ?? type.allows(kind)
            guard allowed else {
                throw error("field '\(fieldName)' of type \(type) cannot be \(kind.keyword)", at: token)
            }
            field.set(kind, true)
        }
        return field
    }

    private mutating func parseType() throws -> FieldType {
        let token = next()
        let word: String
        switch token.kind {
        case .word(let w), .quoted(let w): word = w
        default: throw error("expected a field type, found \(token.text)", at: token)
        }
        if word.uppercased() == "LIST" {
            try expectSymbol("<", "after LIST")
            let elementToken = current
            let element = try parseType()
            guard !element.isList else { throw error("lists of lists are not supported", at: elementToken) }
            try expectSymbol(">", "closing LIST<…>")
            return .list(element)
        }
        guard let type = FieldType(name: word), !type.isList else {
            throw error("unknown field type '\(word)': use STRING, INT64, DOUBLE, TIMESTAMP, BYTES, LOCATION, REFERENCE, ASSET or LIST<…>", at: token)
        }
        return type
    }
}
