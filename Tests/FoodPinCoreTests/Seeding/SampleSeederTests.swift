import Foundation
import LocalCloud
import Testing
@testable import FoodPinCore

@Suite struct SampleSeederTests {
    @Test func theSamplesAreAtLeastTwentyWithImagesAndUniqueNames() throws {
        let samples = try SampleAssets.restaurants(in: CloudFixture.assets)
        #expect(samples.count >= 20)
        #expect(Set(samples.map(\.recordName)).count == samples.count)
        for sample in samples {
            #expect(!sample.name.isEmpty && !sample.type.isEmpty && !sample.location.isEmpty)
            #expect(!sample.phone.isEmpty && !sample.description.isEmpty)
            let image = CloudFixture.assets.appendingPathComponent("Restaurants/\(sample.image)")
            #expect(FileManager.default.fileExists(atPath: image.path), "\(sample.image)")
        }
    }

    @Test func seedingIsIdempotent() async throws {
        let fixture = try CloudFixture()
        let seeder = await fixture.seeder(fixture.container())
        #expect(try await seeder.seedIfNeeded() == .seeded(count: CloudFixture.sampleCount))
        #expect(try await seeder.seedIfNeeded() == .alreadySeeded)
        // A second container on the same files (another process, say) sees the seed too.
        #expect(try await fixture.seeder(fixture.container(user: "bob")).seedIfNeeded() == .alreadySeeded)
        let all = try await fixture.backend().restaurants(limit: nil, includingImages: true)
        #expect(all.count == CloudFixture.sampleCount)
        #expect(all.allSatisfy { $0.imageFile != nil })
        #expect(all.first?.name == (try SampleAssets.restaurants(in: CloudFixture.assets)).first?.name)
    }

    @Test func aDatabaseWithRestaurantsIsNotSeeded() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend()
        _ = try await backend.save(RestaurantDraft(name: "Mine", type: "T", location: "L"))
        #expect(try await fixture.seeder(fixture.container()).seedIfNeeded() == .alreadySeeded)
        #expect(try await backend.restaurants(limit: nil, includingImages: false).count == 1)
    }

    @Test func twoSeedersPastTheEmptyCheckStillMakeOneCopy() async throws {
        let fixture = try CloudFixture()
        let alice = await fixture.seeder(fixture.container(user: "alice"))
        let bob = await fixture.seeder(fixture.container(user: "bob"))
        // Both skip the "is it empty?" check, as two processes starting together would both pass it.
        async let first = alice.seed()
        async let second = bob.seed()
        let outcomes = try await [first, second]
        #expect(outcomes.filter { $0 == .seeded(count: CloudFixture.sampleCount) }.count == 1)
        #expect(outcomes.contains(.alreadySeeded))
        #expect(try await fixture.backend().restaurants(limit: nil, includingImages: false).count == CloudFixture.sampleCount)
    }

    @Test func manyConcurrentFirstRunsMakeOneCopy() async throws {
        let fixture = try CloudFixture()
        let outcomes = try await withThrowingTaskGroup(of: SampleSeeder.Outcome.self) { group in
            for user in 0..<6 {
                let seeder = await fixture.seeder(fixture.container(user: "user\(user)"))
                group.addTask { try await seeder.seedIfNeeded() }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 != .alreadySeeded }.count == 1)
        #expect(try await fixture.backend().restaurants(limit: nil, includingImages: false).count == CloudFixture.sampleCount)
    }

    @Test func withoutAnAccountNothingIsSeeded() async throws {
        let fixture = try CloudFixture()
        #expect(try await fixture.seeder(fixture.container(user: nil)).seedIfNeeded() == .notSignedIn)
    }

    @Test func assetsAreFoundFromTheEnvironmentTheExecutableOrTheSourceTree() throws {
        let assets = CloudFixture.assets
        #expect(SampleAssets.locate(environment: ["FOODPIN_ASSETS": assets.path], executable: nil, sourceFile: "/nowhere/a/b/c/d.swift")?.path == assets.path)
        #expect(SampleAssets.locate(environment: ["FOODPIN_ASSETS": "/nonexistent"], executable: nil) == nil)
        let executable = assets.deletingLastPathComponent().appendingPathComponent(".build/debug/foodpin")
        #expect(SampleAssets.locate(environment: [:], executable: executable, sourceFile: "/nowhere/a/b/c/d.swift")?.standardizedFileURL.path
                == assets.standardizedFileURL.path)
        #expect(SampleAssets.locate(environment: [:], executable: URL(fileURLWithPath: "/usr/bin/true"))?.standardizedFileURL.path
                == assets.standardizedFileURL.path)
    }

    /// `scripts/install.sh PREFIX` puts the samples in `PREFIX/share/foodpin/Assets`: an installed
    /// `foodpin` (or a symlink to it) finds them there first, before any checkout.
    @Test func installedAssetsAreFoundBesideTheInstalledExecutable() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("foodpin-prefix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let installed = prefix.appendingPathComponent(SampleAssets.installedPath, isDirectory: true)
        try FileManager.default.createDirectory(at: installed.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CloudFixture.assets, to: installed)
        let bin = prefix.appendingPathComponent("bin", isDirectory: true)
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let executable = bin.appendingPathComponent("foodpin")
        _ = FileManager.default.createFile(atPath: executable.path, contents: Data())
        let elsewhere = prefix.appendingPathComponent("elsewhere", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let link = elsewhere.appendingPathComponent("foodpin")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: executable)

        for path in [executable, link] {
            #expect(SampleAssets.locate(environment: [:], executable: path)?.standardizedFileURL.path
                    == installed.standardizedFileURL.path)
        }
        #expect(SampleAssets.locate(environment: ["FOODPIN_ASSETS": CloudFixture.assets.path], executable: executable)?.path
                == CloudFixture.assets.path)
    }
}
