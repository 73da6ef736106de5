import Crypto
import Foundation
import LocalCloud
import Testing
@testable import LocalCloudServer

/// `localcloud tokens|users|keys`, run as the built binary against the data directory of a running server.
@Suite("console: tokens, users and keys")
struct TokenConsoleTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `localcloud` binary SwiftPM built next to the test bundle.
    static func binary() throws -> URL {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        for directory in candidates {
            var url = directory
            for _ in 0..<3 {
                let binary = url.appendingPathComponent("localcloud")
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
                url = url.deletingLastPathComponent()
            }
        }
        throw CloudError(.internalError, "localcloud not found next to the tests; run `swift build --build-tests` first")
    }

    static func run(_ server: TestServer, _ arguments: [String], stdin: String? = nil) async throws -> Run {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = ["--data-dir", server.dataDirectory.path, "--container", server.container] + arguments
        // The exit is awaited on a thread of its own, not the pool's.
        let input = stdin.map { Data($0.utf8) }
        let output = try await BlockingThread.run("localcloud") { try BlockingThread.runCapturingNow(process, stdin: input) }
        return Run(status: output.exit.status, stdout: String(decoding: output.stdout, as: UTF8.self),
                   stderr: String(decoding: output.stderr, as: UTF8.self))
    }

    static func isHex64(_ text: String) -> Bool { Secret.isHex64(text) && text == text.lowercased() }

    @Test func tokensCreateListAndRevoke() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let created = try await Self.run(server, ["tokens", "create", "--name", "web"])
        #expect(created.status == 0, "\(created.stderr)")
        let token = String(created.stdout.dropLast())
        #expect(created.stdout.hasSuffix("\n") && Self.isHex64(token), "only the token: \(created.stdout)")
        let query = #"{"query": {"recordType": "Restaurant"}}"#
        #expect(try await server.send(.POST, "records/query", apiToken: token, body: query).status == 200)

        let production = try await Self.run(server, ["tokens", "create", "--environment", "production"])
        #expect(try await server.send(.POST, "records/query", apiToken: String(production.stdout.dropLast()), body: query).status == 401)

        let list = try await Self.run(server, ["tokens", "list"])
        #expect(list.status == 0)
        #expect(list.stdout.contains("web") && list.stdout.contains("production"))
        #expect(list.stdout.contains(String(Secret.digest(token).prefix(12))))
        #expect(!list.stdout.contains(token), "the list never shows a token")

        let revoke = try await Self.run(server, ["tokens", "revoke", token])
        #expect(revoke.status == 0, "\(revoke.stderr)")
        #expect(try await server.send(.POST, "records/query", apiToken: token, body: query).status == 401)
        let again = try await Self.run(server, ["tokens", "revoke", token])
        #expect(again.status != 0)
        #expect(again.stderr.hasPrefix("localcloud: error: ") && again.stderr.split(separator: "\n").count == 1, "\(again.stderr)")
    }

    @Test func usersAddTokenSignoutAndList() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let apiToken = try await server.identity.createAPIToken(container: server.container, environment: .development)

        let added = try await Self.run(server, ["users", "add", "alice", "--password-stdin"], stdin: "s3cret pass\n")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await server.signin("alice", password: "s3cret pass").status == 200, "the trailing newline is not part of it")

        let noTerminal = try await Self.run(server, ["users", "add", "bob"])
        #expect(noTerminal.status != 0)
        #expect(noTerminal.stderr.contains("--password-stdin"), "\(noTerminal.stderr)")
        let duplicate = try await Self.run(server, ["users", "add", "alice", "--password-stdin"], stdin: "x")
        #expect(duplicate.status != 0)
        #expect(duplicate.stderr.contains("exists already"))

        let issued = try await Self.run(server, ["users", "token", "alice", "--lifetime", "1h"])
        #expect(issued.status == 0, "\(issued.stderr)")
        let token = String(issued.stdout.dropLast())
        #expect(token.utf8.count >= 100 && !token.contains("\n"), "only the token")
        let current = try await server.send(.GET, "users/current", apiToken: apiToken, webAuthToken: token)
        #expect(current.json["userRecordName"] == JSONValue.string("_alice"))
        #expect(try await Self.run(server, ["users", "token", "nobody"]).status != 0)
        #expect(try await Self.run(server, ["users", "token", "alice", "--lifetime", "soon"]).status != 0)

        let list = try await Self.run(server, ["--json", "users", "list"])
        let users = try JSONValue.parse(Array(list.stdout.utf8))
        #expect(users.arrayValue?.compactMap { $0["userRecordName"]?.stringValue } == ["_alice"])

        let signout = try await Self.run(server, ["users", "signout", "alice"])
        #expect(signout.status == 0)
        #expect(signout.stdout.contains("revoked 2"), "the sign-in and `users token`")
        #expect(try await server.send(.GET, "users/current", apiToken: apiToken, webAuthToken: token).status == 401)
    }

    @Test func keysAddListAndRevoke() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let key = P256.Signing.PrivateKey()
        let file = server.dataDirectory.appendingPathComponent("eckey.pub")
        try key.publicKey.pemRepresentation.write(to: file, atomically: true, encoding: .utf8)

        let added = try await Self.run(server, ["keys", "add", "--public-key", file.path])
        #expect(added.status == 0, "\(added.stderr)")
        let keyID = String(added.stdout.dropLast())
        #expect(Self.isHex64(keyID), "only the key ID: \(added.stdout)")
        #expect(try await server.identity.liveServerKey(id: keyID, container: server.container, environment: .development) != nil)

        let list = try await Self.run(server, ["keys", "list"])
        #expect(list.stdout.contains(keyID))
        #expect(try await Self.run(server, ["keys", "revoke", keyID]).status == 0)
        #expect(try await server.identity.liveServerKey(id: keyID, container: server.container, environment: .development) == nil)

        try "not a key".write(to: file, atomically: true, encoding: .utf8)
        let bad = try await Self.run(server, ["keys", "add", "--public-key", file.path])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("P-256"))
    }

    /// `users add` without `--password-stdin` asks on the terminal, twice, without echo: run under a
    /// pty (`script`), answering each prompt once it appears.
    @Test func usersAddAsksOnTheTerminalWithoutEcho() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let command = [try Self.binary().path, "--data-dir", server.dataDirectory.path, "--container", server.container,
                       "users", "add", "carol"].map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let seen = LogLines()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if !data.isEmpty { seen.append(String(decoding: data, as: UTF8.self)) }
        }
        try process.run()
        defer { output.fileHandleForReading.readabilityHandler = nil }
        func transcript() -> String { seen.all.joined() }
        func waitFor(_ text: String) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if transcript().contains(text) { return true }
                try? await Task.sleep(for: .milliseconds(20))  // poll interval
            }
            return false
        }
        #expect(await waitFor("Password for carol: "))
        input.fileHandleForWriting.write(Data("tty-secret\n".utf8))
        #expect(await waitFor("Repeat the password: "))
        input.fileHandleForWriting.write(Data("tty-secret\n".utf8))
        #expect(await waitFor("Added user carol"), "\(transcript())")
        #expect(await BlockingThread.waitForExit(process).succeeded)
        #expect(!transcript().contains("tty-secret"), "the password is not echoed: \(transcript())")
        #expect(try await server.signin("carol", password: "tty-secret").status == 200)
    }
}
