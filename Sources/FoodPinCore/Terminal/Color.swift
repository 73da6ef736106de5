/// A terminal colour as the view asks for it; the adapter maps it to what the terminal can show.
package enum Color: Hashable, Sendable {
    /// The terminal's own default foreground or background.
    case `default`
    /// One of the 256 xterm palette entries (0–15 are the basic colours).
    case indexed(UInt8)
    /// A 24-bit colour; the adapter reduces it to the palette in use.
    case rgb(UInt8, UInt8, UInt8)
}
