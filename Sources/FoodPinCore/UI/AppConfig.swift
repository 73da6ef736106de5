/// What the app was started with: terminal capabilities, the user, and injected services.
package struct AppConfig: Sendable {
    package var colorMode: ColorMode
    /// `false` on terminals without UTF-8: ASCII spinner and placeholder glyphs.
    package var unicode: Bool
    /// The signed-in user's name; only they may delete their own restaurants.
    package var currentUser: String?
    /// Rows per query page.
    package var pageSize: Int
    /// `--no-images`: no thumbnails are loaded.
    package var showsImages: Bool
    /// `--debug`: show cache counters in the title bar.
    package var debug: Bool
    package var formServices: FormServices
    /// How long the search waits for more typing before querying.
    package var searchDebounce: Duration
    /// Where the data lives, for the status line: `local`, or the server's host.
    package var dataLocation = "local"
    /// Phone numbers and locations in the detail view are hyperlinks (off with `--no-links`,
    /// and on terminals known to print OSC 8 as text).
    package var showsLinks = true

    package init(
        colorMode: ColorMode = .colors256, unicode: Bool = true, currentUser: String? = nil, pageSize: Int = 50,
        showsImages: Bool = true, debug: Bool = false, formServices: FormServices = .live,
        searchDebounce: Duration = .milliseconds(150)
    ) {
        self.colorMode = colorMode
        self.unicode = unicode
        self.currentUser = currentUser
        self.pageSize = max(1, pageSize)
        self.showsImages = showsImages
        self.debug = debug
        self.formServices = formServices
        self.searchDebounce = searchDebounce
    }
}
