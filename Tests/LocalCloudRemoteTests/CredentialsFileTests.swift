import Foundation
import LocalCloud
import Testing

@Suite struct CredentialsFileTests {
    @Test func savesPerServerAndContainerReadableOnlyByTheOwner() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lcr-creds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let file = CredentialsFile.standard(environment: ["XDG_CONFIG_HOME": root.path, "HOME": "/nonexistent"])
        #expect(file.url.path == root.path + "/localcloud/credentials.json")
        #expect(try file.load().isEmpty)

        let old = umask(0o022)
        defer { umask(old) }
        try file.save(SavedCredentials(server: "http://a:1/", container: "iCloud.X", environment: .development, user: "alice",
                                       apiToken: "t1", webAuthToken: "w1", signedIn: Date(timeIntervalSince1970: 100)))
        try file.save(SavedCredentials(server: "http://b:2", container: "iCloud.X", environment: .development, user: "bob",
                                       apiToken: "t2", webAuthToken: "w2", signedIn: Date(timeIntervalSince1970: 200)))
        try file.save(SavedCredentials(server: "http://a:1", container: "iCloud.X", environment: .development, user: "carol",
                                       apiToken: "t1", webAuthToken: "w3", signedIn: Date(timeIntervalSince1970: 300)))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: file.url.deletingLastPathComponent().path)
        #expect((directory[.posixPermissions] as? NSNumber)?.intValue == 0o700)

        #expect(try file.load().count == 2, "one entry per server and container: carol replaced alice")
        #expect(try file.credentials(server: "http://a:1/", container: "iCloud.X")?.user == "carol")
        #expect(try file.latest(container: "iCloud.X")?.user == "carol")
        #expect(try file.latest(container: "iCloud.Other") == nil)

        #expect(try file.remove(server: "http://a:1", container: "iCloud.X") == 1)
        #expect(try file.latest(container: "iCloud.X")?.user == "bob")
        #expect(try file.remove(server: nil, container: "iCloud.X") == 1)
        #expect(!FileManager.default.fileExists(atPath: file.url.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.url.deletingLastPathComponent().path)
        #expect(leftovers.isEmpty, "no temporary files left behind: \(leftovers)")
    }
}
