import Foundation

extension Renderer {
    static let helpLines: [(String, String)] = [
        ("j / ↓, k / ↑", "move down / up"),
        ("g / Home, G / End", "first (and what is new) / last"),
        ("PgDn / PgUp, wheel", "page down / up, scroll"),
        ("Enter", "open the restaurant"),
        ("Esc, q", "go back (q on the list quits)"),
        ("r, k at the top", "refresh"),
        ("/", "search (Enter: results, Esc: clear)"),
        ("a", "add a restaurant"),
        ("e", "edit your restaurant"),
        ("d", "delete your restaurant"),
        ("o", "open the location's map (detail)"),
        ("s", "save the restaurant to a list"),
        ("l", "lists: yours and shared with you"),
        ("d (in a list)", "remove the entry, where you may write"),
        ("?", "this help"),
    ]

    mutating func renderHelp() {
        renderTitle("FoodPin · Help")
        renderHelpBar([("Esc", "close")])
        var y = Layout.listTop
        for (keys, action) in Self.helpLines where y < height - 1 {
            let keyText = unicode ? keys : keys.replacingOccurrences(of: "↓", with: "Down").replacingOccurrences(of: "↑", with: "Up")
            grid.put(keyText, x: 2, y: y, style: theme.key, maxX: 24)
            grid.put(action, x: 24, y: y, style: theme.text)
            y += 1
        }
    }
}
