/// The activity spinner's frames, padded to one width so the text after it never jitters.
///
/// ```swift
/// Spinner.frame(phase: 3, unicode: true) + "Loading…"   // "⠸ Loading…"
/// Spinner.frame(phase: 3, unicode: false) + "Loading…"  // "\ Loading…"
/// ```
package enum Spinner {
    package static let unicodeFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    /// For terminals without UTF-8.
    package static let asciiFrames = ["|", "/", "-", "\\"]

    /// The frame for a phase, padded to the widest frame plus one space.
    package static func frame(phase: Int, unicode: Bool) -> String {
        let frames = unicode ? unicodeFrames : asciiFrames
        let width = frames.map(DisplayWidth.of).max() ?? 1
        let frame = frames[((phase % frames.count) + frames.count) % frames.count]
        return frame + String(repeating: " ", count: width - DisplayWidth.of(frame) + 1)
    }
}
