/// A key or mouse event, decoded by the terminal adapter.
package enum Key: Hashable, Sendable {
    case character(Character)
    /// Ctrl plus a letter, lower-cased: `.control("s")` is Ctrl-S.
    case control(Character)
    case up, down, left, right
    case home, end, pageUp, pageDown
    case enter, escape, tab, backTab, backspace, delete
    case wheelUp, wheelDown
    case function(Int)
}
