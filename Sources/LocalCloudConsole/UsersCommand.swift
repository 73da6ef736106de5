import ArgumentParser
import Foundation
import LocalCloud
import LocalCloudServer
#if canImport(Glibc)
import Glibc
#endif

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Add accounts that sign in to `localcloud serve`, issue and revoke their web auth tokens.",
        discussion: """
            Accounts belong to a container (both environments). Passwords are stored as bcrypt hashes, \
            web auth tokens as SHA-256.
            Examples:
              printf '%s' "$PASSWORD" | localcloud users add alice --password-stdin --email alice@example.com
              WEB_TOKEN=$(localcloud users token alice --lifetime 1h)
              localcloud users signout alice
            """,
        subcommands: [Add.self, Token.self, Signout.self, List.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an account; the password is asked for on the terminal (without echo) or read from stdin.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The account name (letters, digits, '.', '-', '_', '@').", valueName: "name")) var name: String
        @Flag(help: "Read the password from stdin (one trailing newline is dropped).") var passwordStdin = false
        @Flag(help: "Leave the account out of users/discover.") var undiscoverable = false
        @Option(help: ArgumentHelp("An email address others can find the account by (share a list with bob@example.com).",
                                   valueName: "address"))
        var email: String?

        func run() async throws {
            try SQLiteIdentityStore.validate(userName: name)
            if let email { _ = try UserAccount.normalizedEmail(email) }   // before asking for the password
            let password = try passwordStdin ? PasswordInput.fromStdin() : PasswordInput.fromTerminal(for: name)
            let session = try await Session(global)
            let user = try await session.identityStore.addUser(
                name, password: password, container: session.containerIdentifier, discoverable: !undiscoverable, email: email)
            global.json ? try Output.json(UserAdded(added: user.name, userRecordName: user.userRecordName))
                : Output.line("Added user \(user.name) to \(session.containerIdentifier)")
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign an account in: print only a new web auth token (ckWebAuthToken).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The account name.", valueName: "name")) var name: String
        @Option(help: ArgumentHelp("How long the token lasts: 90s, 30m, 12h, 14d (default 14d).", valueName: "duration"))
        var lifetime: String = "14d"

        func run() async throws {
            guard let duration = LifetimeParser.parse(lifetime) else {
                throw CloudError(.invalidArguments, "Invalid --lifetime '\(lifetime.prefix(40))': use a number with s, m, h or d, e.g. 12h")
            }
            let session = try await Session(global)
            let token = try await session.identityStore.issueWebAuthToken(
                user: name, container: session.containerIdentifier, lifetime: duration)
            Output.line(token)
        }
    }

    struct Signout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke every web auth token of an account.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The account name.", valueName: "name")) var name: String

        func run() async throws {
            let session = try await Session(global)
            let count = try await session.identityStore.signOut(user: name, container: session.containerIdentifier)
            global.json ? try Output.json(SignOutReport(user: name, revoked: count))
                : Output.line("Signed \(name) out: revoked \(count) web auth token(s)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the accounts: name, user record name, discoverable, created, email.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let session = try await Session(global)
            let users = try await session.identityStore.users(container: session.containerIdentifier)
            if global.json {
                try Output.json(users.map { user in
                    UserJSON(name: user.name, userRecordName: user.userRecordName, discoverable: user.discoverable,
                             created: IdentityOutput.date(user.created), email: user.email)
                })
                return
            }
            Output.table(["NAME", "USER RECORD NAME", "DISCOVERABLE", "CREATED", "EMAIL"], users.map { user in
                [user.name, user.userRecordName, user.discoverable ? "yes" : "no", IdentityOutput.date(user.created), user.email ?? "-"]
            })
        }
    }
}

/// `users add --json`.
struct UserAdded: Encodable {
    var added: String
    var userRecordName: String
}

/// `users signout --json`.
struct SignOutReport: Encodable {
    var user: String
    var revoked: Int
}

/// One account in `users list --json`.
struct UserJSON: Encodable {
    var name: String
    var userRecordName: String
    var discoverable: Bool
    var created: String
    /// Absent for an account without one.
    var email: String?
}

/// `90s`, `30m`, `12h`, `14d`, or plain seconds.
enum LifetimeParser {
    static func parse(_ text: String) -> Duration? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text)
        var unit: Int64 = 1
        if let last = text.last, let seconds = units[last] {
            unit = seconds
            digits = text.dropLast()
        }
        guard let value = Int64(digits), value > 0, value <= 3650 * 86_400 / unit else { return nil }
        return .seconds(value * unit)
    }
}

/// Reading a password: from stdin for scripts, or from the terminal without echo.
enum PasswordInput {
    static func fromStdin() throws -> String {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard var text = String(data: data, encoding: .utf8) else {
            throw ConsoleFailure(message: "the password on stdin is not UTF-8")
        }
        if text.hasSuffix("\n") { text.removeLast() }
        if text.hasSuffix("\r") { text.removeLast() }
        return text
    }

    static func fromTerminal(for name: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            throw ConsoleFailure(message: "no terminal to ask for the password on: pass --password-stdin")
        }
        let first = try readHidden(prompt: "Password for \(name): ")
        let second = try readHidden(prompt: "Repeat the password: ")
        guard first == second else { throw ConsoleFailure(message: "the passwords do not match") }
        return first
    }

    /// One line from the terminal with echo off; the prompt goes to stderr so stdout stays clean.
    private static func readHidden(prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw ConsoleFailure(message: "cannot read the terminal's settings") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true) else { throw ConsoleFailure(message: "no password given") }
        return line
    }
}
