import CNCurses
import FoodPinCore

/// One thing read from ncurses: a key, or the news that the terminal changed size.
enum CursesInput: Equatable {
    case key(Key)
    case resize

    /// Decodes a `wget_wch` result: `isKeyCode` when it returned `KEY_CODE_YES`.
    ///
    /// - Parameter mouseState: reads the pending mouse event's button bits; called only for `KEY_MOUSE`.
    static func decode(_ code: UInt32, isKeyCode: Bool, mouseState: () -> mmask_t = { cn_mouse_state() }) -> CursesInput? {
        guard isKeyCode else { return Key(terminalCharacter: code).map(CursesInput.key) }
        let keyCode = Int32(bitPattern: code)
        switch keyCode {
        case KEY_RESIZE: return .resize
        case KEY_MOUSE:
            let state = mouseState()
            if state & cn_button4_pressed() != 0 { return .key(.wheelUp) }
            if state & cn_button5_pressed() != 0 { return .key(.wheelDown) }
            return nil
        case KEY_UP: return .key(.up)
        case KEY_DOWN: return .key(.down)
        case KEY_LEFT: return .key(.left)
        case KEY_RIGHT: return .key(.right)
        case KEY_HOME, KEY_A1: return .key(.home)
        case KEY_END, KEY_C1: return .key(.end)
        case KEY_PPAGE, KEY_A3: return .key(.pageUp)
        case KEY_NPAGE, KEY_C3: return .key(.pageDown)
        case KEY_ENTER: return .key(.enter)
        case KEY_BTAB: return .key(.backTab)
        case KEY_BACKSPACE: return .key(.backspace)
        case KEY_DC: return .key(.delete)
        case (KEY_F0 + 1)...(KEY_F0 + 63): return .key(.function(Int(keyCode - KEY_F0)))
        default: return nil
        }
    }
}
