/// A rectangle of terminal cells that a thumbnail is drawn into.
package struct CellBox: Hashable, Sendable {
    package var columns: Int
    package var rows: Int

    package init(columns: Int, rows: Int) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
    }

    /// The thumbnail at the left of a Discover row.
    package static let listRow = CellBox(columns: 8, rows: 4)
    /// The large image in the detail view.
    package static let detail = CellBox(columns: 48, rows: 20)
    /// The live preview in the add form.
    package static let preview = CellBox(columns: 16, rows: 6)
}
