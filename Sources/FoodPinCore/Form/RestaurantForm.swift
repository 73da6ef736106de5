import Foundation

/// The "New Restaurant" form: fields, focus, inline errors, and the keys that drive them.
///
/// ```swift
/// var form = RestaurantForm(services: .live)
/// for key in keys {
///     switch form.handle(key) {
///     case .save(let draft): // run the save; later `saveFailed` keeps the form and its input
///     case .cancel: // close the form
///     case .none: break
///     }
/// }
/// ```
///
/// The form never loses input: an invalid save only sets ``errors`` and moves the focus to
/// the first field in error; a failed save (``saveFailed(_:)``) keeps every field as typed.
public struct RestaurantForm: Sendable {
    public enum Field: Int, CaseIterable, Hashable, Sendable, Comparable {
        case name, type, location, phone, description, image, save, cancel

        public static func < (lhs: Field, rhs: Field) -> Bool { lhs.rawValue < rhs.rawValue }

        public var label: String {
            switch self {
            case .name: "Name"
            case .type: "Type"
            case .location: "Location"
            case .phone: "Phone"
            case .description: "Description"
            case .image: "Image"
            case .save: "Save"
            case .cancel: "Cancel"
            }
        }

        public var isTextField: Bool { self != .save && self != .cancel }

        /// The most graphemes a field holds.
        public var maxLength: Int {
            switch self {
            case .name: 100
            case .type: 50
            case .location: 200
            case .phone: 30
            case .description: 2000
            case .image: 1024
            case .save, .cancel: 0
            }
        }
    }

    /// What the caller should do after a key.
    public enum Action: Hashable, Sendable {
        case none
        case save(RestaurantDraft)
        case cancel
    }

    public internal(set) var editors: [Field: LineEditor]
    public private(set) var focus: Field = .name
    /// Inline errors by field.
    public internal(set) var errors: [Field: String] = [:]
    /// An error about the whole save (permission, disk full), shown above the buttons.
    public private(set) var saveError: String?
    public private(set) var isSaving = false
    /// Set after Esc on a form with input: the next `y` discards, anything else keeps editing.
    public private(set) var isConfirmingDiscard = false
    /// Candidates listed by an ambiguous Tab completion on the image field.
    public internal(set) var completions: [String] = []
    /// The image path the preview shows, once it probed as a readable image.
    public internal(set) var previewPath: String?
    /// The live preview of ``previewPath``, once rendered.
    public internal(set) var preview: ThumbnailOutcome?
    /// The last path probed, so typing elsewhere does not probe again.
    var probedPath: String?
    let services: FormServices

    /// The size of the image field's live preview.
    public static let previewSize = ThumbnailSize(columns: 8, rows: 4)

    public init(services: FormServices) {
        self.services = services
        var editors: [Field: LineEditor] = [:]
        for field in Field.allCases where field.isTextField {
            editors[field] = LineEditor(multiline: field == .description, maxLength: field.maxLength)
        }
        self.editors = editors
    }

    /// A form filled with values, as `foodpin add` does, so the command line shares the validation:
    /// `RestaurantForm(draft: values, services: .live).validate()`.
    public init(draft: RestaurantDraft, services: FormServices) {
        self.init(services: services)
        setText(draft.name, for: .name)
        setText(draft.type, for: .type)
        setText(draft.location, for: .location)
        setText(draft.phone, for: .phone)
        setText(draft.description, for: .description)
        setText(draft.imagePath ?? "", for: .image)
    }

    public func text(_ field: Field) -> String { editors[field]?.text ?? "" }
    public func editor(_ field: Field) -> LineEditor? { editors[field] }

    /// Whether anything was typed.
    public var isDirty: Bool { editors.values.contains { !$0.isEmpty } }

    /// Applies one key.
    public mutating func handle(_ key: Key) -> Action {
        if isSaving { return .none } // the save is in flight; input is kept as it was sent
        if isConfirmingDiscard {
            isConfirmingDiscard = false
            if key == .character("y") || key == .character("Y") { return .cancel }
            return .none
        }
        switch key {
        case .escape:
            if !completions.isEmpty {
                completions = []
                return .none
            }
            return requestCancel()
        case .control("s"):
            return submit()
        case .tab:
            if focus == .image, completePath() { return .none }
            moveFocus(by: 1)
        case .backTab, .up:
            moveFocus(by: -1)
        case .down:
            moveFocus(by: 1)
        case .enter:
            switch focus {
            case .save: return submit()
            case .cancel: return requestCancel()
            case .description: edit(key)
            default: moveFocus(by: 1)
            }
        case .left where !focus.isTextField, .right where !focus.isTextField:
            focus = focus == .save ? .cancel : .save
        default:
            if focus.isTextField { edit(key) }
        }
        return .none
    }

    /// Sets a field's text (tests, and `foodpin add`'s values).
    public mutating func setText(_ text: String, for field: Field) {
        editors[field]?.setText(text)
    }

    public mutating func focus(_ field: Field) {
        focus = field
        completions = []
    }

    /// The save failed: keep everything, show the error inline (or above the buttons), re-enable editing.
    public mutating func saveFailed(_ error: DiscoverError) {
        isSaving = false
        if let field = error.field {
            errors[field] = error.message
            focus = field
        } else {
            saveError = error.message
        }
    }

    /// Checks every field; returns the inline errors (empty when the form can be saved).
    public func validate() -> [Field: String] {
        var errors: [Field: String] = [:]
        for field in [Field.name, .type, .location] where trimmed(field).isEmpty {
            errors[field] = "\(field.label) is required"
        }
        for field in Field.allCases where field.isTextField && text(field).count > field.maxLength {
            errors[field] = "\(field.label) is too long (at most \(field.maxLength) characters)"
        }
        let phone = trimmed(.phone)
        if errors[.phone] == nil, !phone.allSatisfy({ $0.isASCII && ($0.isNumber || " +-()".contains($0)) }) {
            errors[.phone] = "Phone may hold only digits, spaces and + - ( )"
        }
        let image = trimmed(.image)
        if errors[.image] == nil, !image.isEmpty, let problem = services.probeImage(expandTilde(image)) {
            errors[.image] = problem
        }
        return errors
    }

    /// The trimmed values, with the image path expanded.
    public var draft: RestaurantDraft {
        let image = trimmed(.image)
        return RestaurantDraft(
            name: trimmed(.name), type: trimmed(.type), location: trimmed(.location), phone: trimmed(.phone),
            description: text(.description).trimmingCharacters(in: .whitespacesAndNewlines),
            imagePath: image.isEmpty ? nil : expandTilde(image))
    }

    /// Call after each key: when the image path changed to a readable image, returns the
    /// expanded path whose preview should be rendered (off the UI thread).
    public mutating func updatePreview() -> String? {
        let typed = trimmed(.image)
        let path = typed.isEmpty ? nil : expandTilde(typed)
        guard path != probedPath else { return nil }
        probedPath = path
        previewPath = nil
        preview = nil
        guard let path, services.probeImage(path) == nil else { return nil }
        previewPath = path
        return path
    }

    /// A rendered preview arrived; kept only if the path is still the one typed.
    public mutating func previewLoaded(path: String, _ outcome: ThumbnailOutcome) {
        if path == previewPath { preview = outcome }
    }

    // MARK: Internals

    private mutating func submit() -> Action {
        errors = validate()
        saveError = nil
        completions = []
        if let first = errors.keys.min() {
            focus = first
            return .none
        }
        isSaving = true
        return .save(draft)
    }

    private mutating func requestCancel() -> Action {
        if isDirty {
            isConfirmingDiscard = true
            return .none
        }
        return .cancel
    }

    private mutating func moveFocus(by delta: Int) {
        let all = Field.allCases
        let index = (focus.rawValue + delta + all.count) % all.count
        focus = all[index]
        completions = []
    }

    private mutating func edit(_ key: Key) {
        guard var editor = editors[focus] else { return }
        let before = editor.text
        editor.handle(key)
        editors[focus] = editor
        if editor.text != before {
            errors[focus] = nil
            completions = []
        }
    }

    func trimmed(_ field: Field) -> String {
        text(field).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
