/// Renders the state into a grid of exactly `width` × `height` cells. Pure: same state, same grid.
///
/// Every piece of record text goes through ``TextSanitizer`` before it reaches the grid.
///
/// ```swift
/// let grid = view(state, width: 80, height: 24)
/// grid.lines[0]   // " FoodPin · Discover …"
/// ```
package func view(_ state: AppState, width: Int, height: Int) -> Grid {
    var renderer = Renderer(state: state, grid: Grid(width: width, height: height))
    renderer.render()
    return renderer.grid
}

/// Draws one frame; split by screen into `Renderer+List`, `+Detail`, `+Form`, `+Help`.
struct Renderer {
    let state: AppState
    var grid: Grid
    let theme: Theme

    init(state: AppState, grid: Grid) {
        self.state = state
        self.grid = grid
        theme = Theme(state.config.colorMode)
    }

    var width: Int { grid.width }
    var height: Int { grid.height }
    var unicode: Bool { state.config.unicode }

    mutating func render() {
        guard width > 0, height > 0 else { return }
        if width < Layout.minimumWidth || height < Layout.minimumHeight {
            renderTooSmall()
            return
        }
        if state.isHelpVisible {
            renderHelp()
            return
        }
        switch state.screen {
        case .list:
            renderList()
            renderListNotice()
            renderSavePicker()
        case .detail(let id): renderDetail(id: id)
        case .form: renderForm()
        case .lists: renderLists()
        case .listEntries: renderListEntries()
        }
    }

    // MARK: Shared pieces

    mutating func renderTooSmall() {
        let message = "Terminal too small (need \(Layout.minimumWidth)×\(Layout.minimumHeight))"
        let lines = TextLayout.wrap([message, "now \(width)×\(height)"], width: width)
        let top = max(0, (height - lines.count) / 2)
        for (offset, line) in lines.enumerated() {
            let x = max(0, (width - DisplayWidth.of(line)) / 2)
            grid.put(line, x: x, y: top + offset, style: offset == 0 ? theme.name : theme.dim)
        }
    }

    mutating func renderTitle(_ title: String, right: String = "") {
        grid.fill(x: 0, y: 0, width: width, height: 1, style: theme.title)
        let rightText = TextLayout.truncate(right, width: max(0, width / 2 - 2))
        let rightWidth = DisplayWidth.of(rightText)
        let titleText = TextLayout.truncate(" " + title, width: max(0, width - rightWidth - 2))
        grid.put(titleText, x: 0, y: 0, style: theme.title)
        if rightWidth > 0 { grid.put(rightText, x: width - rightWidth - 1, y: 0, style: theme.title) }
    }

    var spinner: String { Spinner.frame(phase: state.spinnerPhase, unicode: unicode) }

    /// Row 1: one line of status, the most important message first. It is always reserved,
    /// so a banner appearing never moves the list.
    mutating func renderStatusLine() {
        let y = 1
        if let id = state.deleteConfirmation {
            let name = state.list.restaurant(withID: id).map { TextSanitizer.line($0.name) } ?? id
            banner("Delete “\(name)”? y deletes it, any other key keeps it", style: theme.error, y: y)
        } else if let error = state.errorBanner {
            let text = TextSanitizer.line(error.message) + (error.retry == nil ? "" : " — r to retry")
            banner((unicode ? "✗ " : "! ") + text, style: theme.error, y: y)
        } else if let searchStatus {
            grid.put(searchStatus, x: 1, y: y, style: theme.status)
        } else if state.isRefreshing {
            grid.put(spinner + "Refreshing…", x: 1, y: y, style: theme.status)
        } else if let live = state.liveBannerText {
            banner((unicode ? "● " : "* ") + live + "  (Esc dismisses)", style: theme.live, y: y)
        } else if state.isLoadingMore {
            grid.put(spinner + "Loading more…", x: 1, y: y, style: theme.status)
        } else if state.isLoadingFirstPage {
            grid.put(spinner + "Loading restaurants…", x: 1, y: y, style: theme.status)
        } else {
            let place = state.config.dataLocation + (state.clockNote.map { " · " + $0 } ?? "")
            let location = TextLayout.truncate(place, width: max(0, width - 2))
            grid.put(location, x: max(1, width - DisplayWidth.of(location) - 1), y: y, style: theme.dim)
        }
    }

    mutating func banner(_ text: String, style: CellStyle, y: Int) {
        grid.fill(x: 0, y: y, width: width, height: 1, style: style)
        grid.put(TextLayout.truncate(" " + text, width: width - 1), x: 0, y: y, style: style)
    }

    /// The bottom row: key hints, keys highlighted.
    mutating func renderHelpBar(_ hints: [(key: String, action: String)]) {
        let y = height - 1
        var x = 1
        for hint in hints {
            let needed = DisplayWidth.of(hint.key) + 1 + DisplayWidth.of(hint.action)
            if x + needed > width - 1 { break }
            x = grid.put(hint.key, x: x, y: y, style: theme.key)
            x = grid.put(" " + hint.action, x: x, y: y, style: theme.dim) + 2
        }
    }

    /// Copies a thumbnail, or draws a placeholder box with a glyph while it loads.
    mutating func renderThumbnail(_ key: ThumbnailKey, x: Int, y: Int, selected: Bool) {
        renderImage(state.thumbnails[key], size: key.size, x: x, y: y, selected: selected)
    }

    /// Places an image's encoded photo when it has one and fits on screen whole: blank cells
    /// under it (so the text grid stays correct), the photo in `grid.images` for the adapter.
    mutating func placePixels(_ image: any ThumbnailImage, box: ThumbnailSize, full: ThumbnailSize, x: Int, y: Int,
                              selected: Bool) -> Bool {
        guard let pixels = image.pixels, box == full else { return false }
        let origin = image.pixelOrigin
        guard origin.column + pixels.columns <= box.columns, origin.row + pixels.rows <= box.rows else { return false }
        grid.fill(x: x, y: y, width: box.columns, height: box.rows, style: selected ? theme.selected : .plain)
        grid.images.append(ImagePlacement(x: x + origin.column, y: y + origin.row, image: pixels))
        return true
    }

    /// Draws an image's cells, clipped to `size` and above the help bar.
    mutating func renderImage(_ outcome: ThumbnailOutcome?, size fullSize: ThumbnailSize, x: Int, y: Int, selected: Bool) {
        let size = ThumbnailSize(columns: fullSize.columns, rows: max(0, min(fullSize.rows, height - 1 - y)))
        switch outcome {
        case .image(let image)? where placePixels(image, box: size, full: fullSize, x: x, y: y, selected: selected):
            break
        case .image(let image)?:
            for row in 0..<min(size.rows, image.rows) {
                for column in 0..<min(size.columns, image.columns) {
                    var cell = theme.thumbnailCell(image.cell(column: column, row: row))
                    if cell.isContinuation || cell.width == 2 && column + 1 >= size.columns { cell = Cell(" ", style: cell.style) }
                    guard !TextSanitizer.isUnsafe(cell.character.unicodeScalars.first ?? " ") else { continue }
                    grid[x + column, y + row] = cell
                }
            }
        default:
            let glyph: String
            switch outcome {
            case .noImage?: glyph = unicode ? "·" : "."
            case .failed?: glyph = unicode ? "✗" : "x"
            default: glyph = unicode ? "◌" : "o"
            }
            let style = selected ? theme.onSelected(theme.placeholder) : theme.placeholder
            grid.fill(x: x, y: y, width: size.columns, height: size.rows, style: style)
            grid.put(glyph, x: x + (size.columns - 1) / 2, y: y + (size.rows - 1) / 2, style: style)
        }
    }
}
