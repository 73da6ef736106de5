import Foundation
import Testing
@testable import FoodPinCore

@Suite struct ViewTests {
    func listState(_ items: [Restaurant], width: Int = 50, height: Int = 12, mode: ColorMode = .colors256) -> AppState {
        AppState.loaded(items, width: width, height: height,
                        config: AppConfig(colorMode: mode, currentUser: "alice", formServices: .fake()))
    }

    @Test func listSnapshotNewestFirst() {
        var items = [
            Restaurant.fixture("a", "Cafe Deadend", minutesAgo: 5, type: "Coffee & Tea", location: "Hong Kong"),
            Restaurant.fixture("b", "Homei", minutesAgo: 90, by: "bob", type: "Cafe", location: "Sydney"),
            Restaurant.fixture("c", "Teakha", minutesAgo: 60 * 24 * 3, by: "carol", type: "Tea House", location: "Hong Kong"),
        ]
        items[1].phone = ""
        var state = listState(items)
        send(&state, .thumbnailLoaded(ThumbnailKey(recordID: "a", size: .row), .image(FakeThumbnail(columns: 6, rows: 3))))
        send(&state, .thumbnailLoaded(ThumbnailKey(recordID: "b", size: .row), .noImage))
        let grid = view(state, width: 50, height: 12)
        #expect(grid.width == 50 && grid.height == 12)
        #expect(grid.text == """
             FoodPin · Discover                 3 restaurants
                                                        local
            ▌ ██████  Cafe Deadend
            ▌ ██████  Coffee & Tea · Hong Kong
            ▌ ██████  added 5 min ago by alice
                      Homei
                ·     Cafe · Sydney
                      added 1 hour ago by bob
                      Teakha
                ◌     Tea House · Hong Kong
                      added 3 days ago by carol
             j/k move  Enter open  r refresh  a add  d delete
            """)
        // Styles: the name is bold, the selected row has the selection background.
        #expect(grid[10, 2].style.attributes.contains(.bold))
        #expect(grid[20, 3].style.background == .indexed(237))
        #expect(grid[2, 2].style.foreground == .indexed(196), "thumbnail cells are copied as rendered")
    }

    @Test(arguments: [true, false])
    func spinnerFramesArePaddedSoTheLabelStaysPut(unicode: Bool) {
        var state = AppState(config: AppConfig(unicode: unicode, formServices: .fake()), width: 50, height: 12, now: testNow)
        send(&state, .start)
        let frames = unicode ? Spinner.unicodeFrames : Spinner.asciiFrames
        var seen: [String] = []
        for _ in frames {
            let line = view(state, width: 50, height: 12).lines[1]
            let column = line.firstRange(of: "Loading restaurants…").map { line.distance(from: line.startIndex, to: $0.lowerBound) }
            #expect(column == 3, "label column in \(line)")
            seen.append(String(line.dropFirst().prefix(1)))
            send(&state, .tick)
        }
        #expect(seen == frames)
        #expect(view(state, width: 50, height: 12).lines[1].dropFirst().prefix(1) == frames[0], "the frames wrap around")
        send(&state, .pageLoaded(.first, .success(page(restaurants(0..<2)))))
        #expect(!view(state, width: 50, height: 12).lines[1].contains("Loading"), "the spinner stops when the page arrives")
    }

    @Test func discoverHintsAndHelpNameSaveAndLists() {
        var state = listState([Restaurant.fixture("a", "Cafe Deadend", minutesAgo: 5)], width: 120, height: 30)
        let bar = view(state, width: 120, height: 30).lines.last ?? ""
        #expect(bar.contains("s save to list  l lists"), "the Discover key hints name s and l: \(bar)")
        send(&state, .key(.character("?")))
        let help = view(state, width: 120, height: 30).text
        #expect(help.contains("save the restaurant to a list"))
        #expect(help.contains("lists: yours and shared with you"))
        #expect(help.contains("remove the entry, where you may write"))
    }

    @Test func emptyListWhileLoadingShowsTheSpinnerInTheMiddle() {
        var state = AppState(config: AppConfig(formServices: .fake()), width: 50, height: 12, now: testNow)
        send(&state, .start)
        #expect(view(state, width: 50, height: 12).text.contains("⠋ Loading restaurants…"))
        send(&state, .pageLoaded(.first, .success(page([]))))
        #expect(view(state, width: 50, height: 12).text.contains("No restaurants yet — press a to add one"))
    }

    @Test func errorBannerSaysWhyAndHowToRetry() {
        var state = AppState(config: AppConfig(formServices: .fake()), width: 70, height: 12, now: testNow)
        send(&state, .start, .pageLoaded(.first, .failure(DiscoverError(.loadFailed, "database is locked"))))
        let grid = view(state, width: 70, height: 12)
        #expect(grid.lines[1] == " ✗ Couldn't load restaurants: database is locked — r to retry".padding(toLength: 70, withPad: " ", startingAt: 0))
        #expect(grid[5, 1].style.background == .indexed(124))
        #expect(grid.text.contains("Nothing to show yet — press r to retry"), "never a blank screen")
    }

    @Test func tooSmallShowsAMessageNotACrash() {
        let state = listState(restaurants(0..<3))
        for (width, height) in [(39, 20), (80, 9), (20, 5), (1, 1), (0, 0)] {
            let grid = view(state, width: width, height: height)
            #expect(grid.width == width && grid.height == height)
            if width >= 20 {
                #expect(grid.text.replacingOccurrences(of: "\n", with: " ").contains("need 40×10"), "\(width)×\(height)")
            }
        }
        #expect(view(state, width: 40, height: 10).text.contains("Restaurant r0"), "the minimum size lays out the list")
    }

    @Test func controlCharactersAndEscapeSequencesNeverReachTheGrid() {
        let nasty = Restaurant(
            id: "x", name: "Evil\u{1B}[2J\u{1B}]0;title\u{07}", type: "Bar\u{9B}31m", location: "Tab\there\nnewline",
            phone: "\u{7F}", description: "line1\r\nline2\u{1B}[H", createdAt: testNow, createdBy: "m\u{0}allory")
        var state = listState([nasty], width: 60, height: 24)
        for screen in 0..<2 {
            let grid = view(state, width: 60, height: 24)
            for cell in grid.cells {
                #expect(!cell.character.unicodeScalars.contains { TextSanitizer.isUnsafe($0) }, "raw control in \(grid.text)")
            }
            if screen == 0 {
                #expect(grid.lines[2].contains("Evil␛[2J␛]0;title␇"))
                #expect(grid.lines[3].contains("Bar\u{FFFD}31m · Tab here⏎newline"))
                #expect(grid.lines[4].contains("by m␀allory"))
            } else {
                #expect(grid.text.contains("line2␛[H"))
            }
            send(&state, .key(.enter))
        }
    }

    @Test func wideCharactersTakeTheirTrueWidth() {
        let item = Restaurant.fixture("w", "寿司🍣 Zen", minutesAgo: 1, type: "和食", location: "東京")
        let state = listState([item], width: 40)
        let grid = view(state, width: 40, height: 12)
        let x = Layout.textColumn
        #expect(grid[x, 2].character == "寿" && grid[x, 2].width == 2)
        #expect(grid[x + 1, 2].isContinuation)
        #expect(grid[x + 4, 2].character == "🍣" && grid[x + 4, 2].width == 2)
        #expect(grid[x + 6, 2].character == " ")
        #expect(grid[x + 7, 2].character == "Z")
        #expect(grid.lines[3].contains("和食 · 東京"))
        // Truncation never splits a wide character: 40 columns leave 29 for text.
        let long = Restaurant.fixture("l", String(repeating: "寿", count: 30), minutesAgo: 1)
        let cut = view(listState([long], width: 40), width: 40, height: 12)
        let row = String(cut.text.split(separator: "\n", omittingEmptySubsequences: false)[2])
        #expect(row.hasSuffix("…"))
        #expect(DisplayWidth.of(row) <= 40)
        #expect(row.filter { $0 == "寿" }.count == 14)
    }

    @Test(arguments: ColorMode.allCases)
    func coloursDegradeWithTheMode(mode: ColorMode) {
        var state = listState(restaurants(0..<3), mode: mode)
        // The pipeline renders thumbnails for the mode too (chafa's canvas mode); use a basic colour.
        send(&state, .thumbnailLoaded(ThumbnailKey(recordID: "r0", size: .row), .image(FakeThumbnail(columns: 6, rows: 3, color: .indexed(1)))))
        send(&state, .remoteChanges([RemoteChange(recordID: "z", kind: .created)]))
        var grids = [view(state, width: 50, height: 12)]
        send(&state, .key(.character("d")))
        grids.append(view(state, width: 50, height: 12))
        for grid in grids {
            let colors = grid.cells.flatMap { [$0.style.foreground, $0.style.background] }
            let indices = colors.compactMap { color -> Int? in
                if case .indexed(let i) = color { return Int(i) }
                return nil
            }
            switch mode {
            case .none:
                #expect(colors.allSatisfy { $0 == .default }, "mono uses attributes only")
                #expect(grid.cells.contains { $0.style.attributes.contains(.reverse) })
            case .colors8: #expect(indices.allSatisfy { $0 < 8 })
            case .colors16: #expect(indices.allSatisfy { $0 < 16 })
            case .colors256: #expect(!indices.isEmpty)
            }
            #expect(!colors.contains { if case .rgb = $0 { true } else { false } })
        }
    }

    @Test func detailShowsEveryFieldAndWrapsTheDescription() {
        var item = Restaurant.fixture("d", "Cafe Loisl", minutesAgo: 5, by: "bob", type: "Austrian / Casual Drink",
                                      location: "Shop B, 18 Tai Koo Road, Hong Kong")
        item.phone = "+852 2555 1234"
        item.description = "A little Vienna in Hong Kong. Coffee, cake and a long, lazy afternoon that this view must wrap neatly.\nSecond paragraph."
        var state = listState([item], width: 80)
        send(&state, .resize(width: 80, height: 24), .key(.enter))
        let size = state.detailImageSize
        send(&state, .thumbnailLoaded(ThumbnailKey(recordID: "d", size: size), .image(FakeThumbnail(columns: size.columns, rows: size.rows))))
        let grid = view(state, width: 80, height: 24)
        let text = grid.text
        #expect(grid.lines[0].hasPrefix(" FoodPin · Cafe Loisl"))
        for expected in ["Type: Austrian / Casual Drink", "Location: Shop B, 18 Tai Koo Road, Hong Kong",
                         "Phone: +852 2555 1234", "Added: 5 min ago by bob", "Second paragraph."] {
            #expect(text.contains(expected), "missing \(expected)")
        }
        #expect(grid.lines.allSatisfy { DisplayWidth.of($0) == 80 })
        #expect(text.contains("A little Vienna in Hong Kong. Coffee, cake\n"))
        #expect(text.contains("and a long, lazy afternoon that this view\n"))
        #expect(grid[1, 2].character == "█" && grid[size.columns, 2 + size.rows - 1].character == "█", "the larger image")
        #expect(grid.lines[23].contains("Esc back"))
    }

    @Test func detailMarksThePhoneAndLocationAsLinks() throws {
        var item = Restaurant.fixture("d", "Café Déjà Vu", location: "Montréal, Canada")
        item.phone = "+1 514-555-0142"
        var state = listState([item], width: 80)
        send(&state, .resize(width: 80, height: 24), .key(.enter))
        let grid = view(state, width: 80, height: 24)
        let row = { (text: String) in try #require(grid.lines.firstIndex { $0.contains(text) }) }
        let location = try row("Location: Montréal, Canada")
        let phone = try row("Phone: +1 514-555-0142")
        let column = try #require(grid.lines[location].range(of: "Montréal").map { grid.lines[location].distance(from: grid.lines[location].startIndex, to: $0.lowerBound) })
        #expect(grid.links == [
            LinkSpan(x: column, y: location, width: DisplayWidth.of("Montréal, Canada"),
                     link: try #require(Hyperlink(target: "https://www.openstreetmap.org/search?query=Montr%C3%A9al%2C%20Canada"))),
            LinkSpan(x: column - "Location: ".count + "Phone: ".count, y: phone, width: DisplayWidth.of("+1 514-555-0142"),
                     link: try #require(Hyperlink(target: "tel:+1-514-555-0142"))),
        ])
        #expect(grid[column, location].style.attributes.contains(.underline))
        #expect(!grid[column - 2, location].style.attributes.contains(.underline), "the label is not the link")
        #expect(grid.lines[23].contains("o map"))

        // --no-links: the same text, no spans, nothing underlined.
        var plain = state
        plain.config.showsLinks = false
        let plainGrid = view(plain, width: 80, height: 24)
        #expect(plainGrid.links.isEmpty)
        #expect(plainGrid.text == grid.text)
        #expect(!plainGrid[column, location].style.attributes.contains(.underline))
    }

    @Test func oOpensTheMapOrShowsItsURL() throws {
        var state = listState([Restaurant.fixture("d", location: "Lyon, France")], width: 80)
        send(&state, .resize(width: 80, height: 24), .key(.enter))
        let map = try #require(Hyperlink.map("Lyon, France"))
        #expect(update(&state, .key(.character("o"))) == [.openLink(map)])
        send(&state, .linkOpened(map, opened: false))
        #expect(view(state, width: 80, height: 24).text.contains("Map: https://www.openstreetmap.org/search?query=Lyon%2C%20France"))
        send(&state, .key(.character("j")))
        #expect(state.linkNotice == nil, "the next key clears it")
        send(&state, .linkOpened(map, opened: true))
        #expect(view(state, width: 80, height: 24).text.contains("Opening the map…"))
        // No location, no link to open.
        var nowhere = listState([Restaurant.fixture("n", location: "")], width: 80)
        send(&nowhere, .resize(width: 80, height: 24), .key(.enter))
        #expect(update(&nowhere, .key(.character("o"))).isEmpty)
    }

    @Test func helpScreenListsTheKeys() {
        var state = listState(restaurants(0..<1))
        send(&state, .key(.character("?")))
        let text = view(state, width: 60, height: 14).text
        for key in ["j / ↓, k / ↑", "Enter", "r, k at the top", "a", "d"] { #expect(text.contains(key)) }
    }

    @Test func formShowsFieldsInlineErrorsAndTheCursor() {
        var state = listState(restaurants(0..<1), width: 60, height: 20)
        send(&state, .key(.character("a")))
        for msg in keys("寿司") { send(&state, msg) }
        send(&state, .key(.control("s")))
        let grid = view(state, width: 60, height: 20)
        #expect(grid.text == """
             FoodPin · New Restaurant

             Name         寿司
            ›Type
                          ↳ Type is required
             Location
                          ↳ Location is required
             Phone
             Description



             Image

                          [ Save ]  [ Cancel ]




             Tab next  S-Tab previous  ^S save  Esc cancel
            """)
        #expect(grid[14, 3].character == " " && grid[14, 3].style.attributes.contains(.reverse), "the cursor is in Type")
    }

    @Test func longInputScrollsSidewaysKeepingTheCursorInView() {
        var state = listState(restaurants(0..<1), width: 50, height: 20)
        send(&state, .key(.character("a")))
        for msg in keys(String(repeating: "寿司", count: 20) + "END") { send(&state, msg) }
        let grid = view(state, width: 50, height: 20)
        let row = grid.lines[2]
        #expect(row.contains("END"), "the end of the text, where the cursor is, shows")
        #expect(grid.cells[(2 * 50)...].prefix(50).contains { $0.style.attributes.contains(.reverse) }, "the cursor cell")
        #expect(DisplayWidth.of(row) == 50)
    }

    @Test func descriptionWrapsInsideItsBox() {
        var state = listState(restaurants(0..<1), width: 50, height: 24)
        send(&state, .key(.character("a")))
        state.form?.focus(.description)
        for msg in keys("one two three four five six seven eight nine ten eleven") { send(&state, msg) }
        send(&state, .key(.enter))
        for msg in keys("寿司") { send(&state, msg) }
        let lines = view(state, width: 50, height: 24).lines
        let box = lines[6...9].map { String($0.dropFirst(14)).trimmingCharacters(in: .whitespaces) }
        #expect(box == ["one two three four five six seven", "eight nine ten eleven", "寿司", ""])
    }
}
