import Foundation
import Testing
@testable import FoodPinCore

/// A thumbnail with an encoded photo: the grid gets blank cells under it and a placement for the adapter.
struct FakePixelThumbnail: ThumbnailImage {
    var columns = 6
    var rows = 3
    let pixels: PixelImage?
    var pixelOrigin: (column: Int, row: Int) { (0, 0) }
    func cell(column: Int, row: Int) -> Cell { Cell("█", style: CellStyle(foreground: .indexed(196))) }
    var cost: Int { 100 }
}

@Suite struct PixelViewTests {
    let photo = PixelImage(mode: .kitty, bytes: Array("\u{1B}_Ga=T,c=6,r=2;…\u{1B}\\".utf8), columns: 6, rows: 2)

    @Test func rowsPlacePhotosOverBlankCells() {
        var state = AppState.loaded(restaurants(0..<5), width: 50, height: 14)
        send(&state, .thumbnailLoaded(ThumbnailKey(recordID: "r0", size: .row), .image(FakePixelThumbnail(pixels: photo))))
        send(&state, .thumbnailLoaded(ThumbnailKey(recordID: "r1", size: .row), .image(FakePixelThumbnail(pixels: photo))))
        let grid = view(state, width: 50, height: 14)
        #expect(grid.images == [ImagePlacement(x: 2, y: 2, image: photo), ImagePlacement(x: 2, y: 5, image: photo)])
        #expect(grid.lines[2].hasPrefix("▌         Restaurant r0"), "blank cells under the photo; the text stays in place")
        #expect(grid.lines[5].hasPrefix("          Restaurant r1"))
        #expect(grid[3, 2].style.background == .indexed(237), "the selected row's background under the photo")
    }

    @Test func scrollingMovesThePlacementsAndTheDetailViewHasItsOwn() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14) // 3 rows on screen
        for id in ["r0", "r1", "r2"] {
            send(&state, .thumbnailLoaded(ThumbnailKey(recordID: id, size: .row), .image(FakePixelThumbnail(pixels: photo))))
        }
        #expect(view(state, width: 50, height: 14).images.map(\.y) == [2, 5, 8])
        send(&state, .key(.character("j")), .key(.character("j")), .key(.character("j")))
        // r1 and r2 moved up a row slot; r3 has no photo yet: two placements, at their new rows.
        #expect(view(state, width: 50, height: 14).images.map(\.y) == [2, 5])
        send(&state, .key(.enter))
        #expect(view(state, width: 50, height: 14).images.isEmpty, "the detail view shows no row photos")
    }

    @Test func theDetailViewPlacesItsLargePhoto() {
        var state = AppState.loaded(restaurants(0..<3), width: 100, height: 30)
        send(&state, .key(.enter))
        let size = state.detailImageSize
        let large = PixelImage(mode: .kitty, bytes: [], columns: size.columns, rows: 12)
        send(&state, .thumbnailLoaded(ThumbnailKey(recordID: "r0", size: size),
                                      .image(FakePixelThumbnail(columns: size.columns, rows: size.rows, pixels: large))))
        let grid = view(state, width: 100, height: 30)
        #expect(grid.images == [ImagePlacement(x: 1, y: 2, image: large)])
        #expect(grid.lines[3].hasPrefix(String(repeating: " ", count: 1 + size.columns)), "blank cells under the photo")
        #expect(grid.lines[2].contains("Restaurant r0"), "the text beside it is in place")
    }
}
