import Foundation
import LocalCloud
import Synchronization
import Testing
@testable import FoodPinCore

@Suite struct CloudDiscoverBackendTests {
    @Test func firstPageIsNewestFirstWithoutImageData() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend(seeded: true)
        await backend.seedOnce()
        var added: [Restaurant] = []
        for name in ["First", "Second", "Third"] {
            added.append(try await backend.save(RestaurantDraft(name: name, type: "Thai", location: "Bangkok")))
        }
        let page = try await backend.firstPage(limit: 5)
        #expect(page.restaurants.map(\.name).prefix(3) == ["Third", "Second", "First"])
        #expect(page.restaurants.count == 5)
        #expect(page.cursor != nil)
        let dates = page.restaurants.map(\.createdAt)
        #expect(dates == dates.sorted(by: >))
        // The list query leaves the image out, though the samples have one.
        #expect(page.restaurants.allSatisfy { $0.imageFile == nil })
        let sample = try #require(page.restaurants.last)
        #expect(sample.id.hasPrefix("sample-"))
        #expect(sample.createdBy == "alice")
        #expect(sample.phone.isEmpty == false)
        let image = try #require(try await backend.imageFile(forRecordName: sample.id))
        #expect(try ImageInfo.probe(image).format.contains("jpeg"))
        #expect(try await backend.imageFile(forRecordName: added[0].id) == nil)
    }

    @Test func pagesFollowCursorsWithoutDuplicates() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend(seeded: true)
        let all = try await backend.restaurants(limit: nil, includingImages: false)
        #expect(all.count == CloudFixture.sampleCount)

        var paged: [Restaurant] = []
        var page = try await backend.firstPage(limit: 10)
        var pages = 1
        while true {
            paged += page.restaurants
            guard let cursor = page.cursor else { break }
            page = try await backend.nextPage(after: cursor, limit: 10)
            pages += 1
        }
        #expect(pages == 3)
        #expect(paged.map(\.id) == all.map(\.id))
        #expect(Set(paged.map(\.id)).count == paged.count)
    }

    @Test func listWithImagesAttachesEachAssetFile() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend(seeded: true)
        let listed = try await backend.restaurants(limit: 7, includingImages: true)
        #expect(listed.count == 7)
        for restaurant in listed {
            let file = try #require(restaurant.imageFile)
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func saveScalesTheImageToA1024WideJPEGAndRemovesTheTempFile() async throws {
        let fixture = try CloudFixture()
        let images = try ImageFixtures()
        let big = try await images.convert(["-size", "3000x2000", "plasma:"], to: "big.png")
        let backend = await fixture.backend()
        let saved = try await backend.save(RestaurantDraft(
            name: "Café Über 東京", type: "Fusion", location: "Berlin", phone: "+49 30 1234",
            description: "Two\nlines", imagePath: big.path))
        #expect(fixture.leftoverUploads.isEmpty)
        #expect(saved.createdBy == "alice")
        let file = try #require(try await backend.imageFile(forRecordName: saved.id))
        let info = try ImageInfo.probe(file)
        #expect(info.width == 1024)
        #expect(info.height == 683)
        #expect(info.format.contains("jpeg"))
        let first = try #require(try await backend.firstPage(limit: 1).restaurants.first)
        #expect(first.id == saved.id)
        #expect(first.name == "Café Über 東京")
        #expect(first.description == "Two\nlines")
        #expect(first.phone == "+49 30 1234")
    }

    /// `foodpin add` opens the store while the image scales: `prepare` runs once, the save goes on
    /// after both, and a failing `prepare` is the error (as if it had run first), with nothing saved.
    @Test func workAlongsideTheScalingRunsOnceAndItsErrorWins() async throws {
        let fixture = try CloudFixture()
        let images = try ImageFixtures()
        let photo = try await images.convert(["-size", "2000x1500", "plasma:"], to: "photo.jpg")
        let backend = await fixture.backend()
        let runs = Mutex(0)
        let saved = try await backend.save(
            RestaurantDraft(name: "Alongside", type: "T", location: "L", imagePath: photo.path),
            alongside: { runs.withLock { $0 += 1 } })
        #expect(runs.withLock { $0 } == 1)
        #expect(try ImageInfo.probe(#require(try await backend.imageFile(forRecordName: saved.id))).width == 1024)

        struct StoreDown: Error {}
        await #expect(throws: StoreDown.self) {
            _ = try await backend.save(
                RestaurantDraft(name: "Never", type: "T", location: "L", imagePath: "/nonexistent.jpg"),
                alongside: { throw StoreDown() })
        }
        #expect(fixture.leftoverUploads.isEmpty)
        #expect(try await backend.restaurants(limit: nil, includingImages: false).map(\.name) == ["Alongside"])
    }

    @Test func aFailedSaveRemovesTheTempFileAndSavesNothing() async throws {
        let fixture = try CloudFixture()
        let images = try ImageFixtures()
        let big = try await images.convert(["-size", "2000x1500", "plasma:"], to: "big.jpg")
        // The store refuses assets over 1 KB: the scaled JPEG is written, then the save fails.
        let backend = await fixture.backend(assetSizeLimit: 1024)
        await #expect { _ = try await backend.save(RestaurantDraft(name: "Big", type: "T", location: "L", imagePath: big.path)) }
            throws: { error in
                let error = error as? DiscoverError
                return error?.field == .image && error?.message.contains("size limit") == true
            }
        #expect(fixture.leftoverUploads.isEmpty)
        #expect(try await backend.restaurants(limit: nil, includingImages: false).isEmpty)
    }

    @Test func aCorruptImageIsAnImageFieldErrorAndNothingIsSaved() async throws {
        let fixture = try CloudFixture()
        let images = try ImageFixtures()
        let good = try await images.convert(["-size", "400x300", "plasma:"], to: "good.jpg")
        let data = try Data(contentsOf: good)
        let corrupt = try images.write(data.prefix(data.count / 3) + Data(repeating: 0x42, count: 200), to: "corrupt.jpg")
        let backend = await fixture.backend()
        await #expect { _ = try await backend.save(RestaurantDraft(name: "X", type: "T", location: "L", imagePath: corrupt.path)) }
            throws: { ($0 as? DiscoverError)?.field == .image }
        #expect(fixture.leftoverUploads.isEmpty)
        #expect(try await backend.restaurants(limit: nil, includingImages: false).isEmpty)
    }

    @Test func invalidDraftsFailWithTheirField() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend()
        await #expect { _ = try await backend.save(RestaurantDraft(name: "  ", type: "T", location: "L")) }
            throws: { ($0 as? DiscoverError)?.field == .name }
        await #expect { _ = try await backend.save(RestaurantDraft(name: "N", type: "T", location: "L", phone: "call me")) }
            throws: { ($0 as? DiscoverError)?.field == .phone }
        await #expect { _ = try await backend.save(RestaurantDraft(name: "N", type: "T", location: "L", imagePath: "/nonexistent.jpg")) }
            throws: { ($0 as? DiscoverError)?.field == .image }
    }

    @Test func withoutAnAccountSavesFailAsPermissionErrors() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend(user: nil)
        #expect(backend.currentUser == nil)
        await #expect { _ = try await backend.save(RestaurantDraft(name: "N", type: "T", location: "L")) }
            throws: { ($0 as? DiscoverError)?.code == .permissionDenied }
    }

    @Test func deleteRemovesTheRecord() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend()
        let saved = try await backend.save(RestaurantDraft(name: "Gone soon", type: "T", location: "L"))
        try await backend.delete(id: saved.id)
        #expect(try await backend.firstPage(limit: 10).restaurants.isEmpty)
        await #expect { try await backend.delete(id: saved.id) } throws: { ($0 as? DiscoverError)?.code == .notFound }
    }

    @Test func errorsMapToTheScreensWords() {
        let permission = DiscoverError(CloudError(.permissionFailure, "Only the creator may delete this record"), while: .deleteFailed)
        #expect(permission.code == .permissionDenied)
        #expect(permission.message == "Permission Failure: Only the creator may delete this record")
        let prefixed = DiscoverError(CloudError(.permissionFailure, "Permission Failure: WRITE operation not permitted"), while: .saveFailed)
        #expect(prefixed.message == "Permission Failure: WRITE operation not permitted", "said once")
        let image = DiscoverError(ImageError(.corrupt, "The image is damaged"), while: .saveFailed)
        #expect(image.field == .image && image.code == .invalidImage)
        let other = DiscoverError(CloudError(.quotaExceeded, "Disk full"), while: .saveFailed)
        #expect(other.code == .saveFailed && other.field == nil && other.message == "quotaExceeded: Disk full")
        let signedOut = CloudError(.notAuthenticated, "No iCloud account")
        let words = Set([DiscoverError.Code.loadFailed, .saveFailed, .deleteFailed].map { DiscoverError(signedOut, while: $0).message })
        #expect(words == ["Not signed in: No iCloud account"], "a page load, a save and a delete say the same")
    }

    @Test func invalidFieldsAreAllNamedInOneMessage() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend()
        await #expect { _ = try await backend.save(RestaurantDraft(name: " ", type: "T", location: "L", phone: "call me")) }
            throws: { error in
                let error = error as? DiscoverError
                return error?.field == .name && error?.message == "Name is required; Phone may hold only digits, spaces and + - ( )"
            }
    }

    @Test func aPageLoadAndASaveFailingTogetherSayTheSameThing() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend()
        let locked = CloudError(.serviceUnavailable, "database is locked")
        #expect(DiscoverError(locked, while: .loadFailed).message == DiscoverError(locked, while: .saveFailed).message)
        // Through the backend: a cursor from elsewhere is the page load's own DiscoverError, passed through.
        await #expect { _ = try await backend.nextPage(after: PageCursor("not a cursor"), limit: 5) }
            throws: { ($0 as? DiscoverError) == DiscoverError(.loadFailed, "Invalid page cursor") }
    }

    @Test func userRecordNamesLoseTheirUnderscore() async throws {
        let fixture = try CloudFixture()
        let container = await fixture.container(user: "bob")
        let id = try await container.userRecordID()
        #expect(RestaurantRecord.userName(fromRecordName: id.recordName) == "bob")
        #expect(RestaurantRecord.userName(fromRecordName: nil) == "")
    }

    @Test func thumbnailLoaderFetchesAndRendersRealSamples() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend(seeded: true)
        let loader = backend.thumbnailLoader(renderer: ThumbnailRenderer(colorMode: .colors256))
        let first = try #require(try await backend.firstPage(limit: 1).restaurants.first)
        let key = ThumbnailKey(recordID: first.id, size: .row)
        guard case .image(let image) = await loader.thumbnail(for: key) else {
            Issue.record("no thumbnail")
            return
        }
        #expect(image.columns == ThumbnailSize.row.columns && image.rows == ThumbnailSize.row.rows)
        let colored = (0..<image.rows).flatMap { row in (0..<image.columns).map { image.cell(column: $0, row: row) } }
            .filter { $0.style.foreground != .default || $0.style.background != .default }
        #expect(!colored.isEmpty)
        // From the cache the second time: no new fetch.
        _ = await loader.thumbnail(for: key)
        #expect(loader.fetchCount == 1)
    }
}
