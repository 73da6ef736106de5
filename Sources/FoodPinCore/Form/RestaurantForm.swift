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
///
/// The form never touches the disk. Probing the image path and listing a directory for Tab
/// completion are actions the caller runs off the UI thread; their answers come back through
/// ``imageProbed(path:problem:)`` and ``directoryListed(_:entries:)``.
package struct RestaurantForm: Sendable {
    package enum Field: Int, CaseIterable, Hashable, Sendable, Comparable {
        case name, type, location, phone, description, image, save, cancel

        package static func < (lhs: Field, rhs: Field) -> Bool { lhs.rawValue < rhs.rawValue }

        package var label: String {
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

        package var isTextField: Bool { self != .save && self != .cancel }

        /// The most graphemes a field holds.
        package var maxLength: Int {
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
    package enum Action: Hashable, Sendable {
        case none
        case save(RestaurantDraft)
        case cancel
        /// Probe the image at `path` before saving; answer with ``imageProbed(path:problem:)``.
        case probeImage(path: String)
        /// List `path` for Tab completion; answer with ``directoryListed(_:entries:)``.
        case listDirectory(path: String)
        /// After a conflict, the user kept the other machine's version: close the form, show it.
        case keepTheirs(Restaurant)
    }

    package internal(set) var editors: [Field: LineEditor]
    package private(set) var focus: Field = .name
    /// Inline errors by field.
    package internal(set) var errors: [Field: String] = [:]
    /// An error about the whole save (permission, disk full), shown above the buttons.
    package private(set) var saveError: String?
    package private(set) var isSaving = false
    /// Set after Esc on a form with input: the next `y` discards, anything else keeps editing.
    package private(set) var isConfirmingDiscard = false
    /// Candidates listed by an ambiguous Tab completion on the image field.
    package internal(set) var completions: [String] = []
    /// The image path the preview shows, once it probed as a readable image.
    package internal(set) var previewPath: String?
    /// The live preview of ``previewPath``, once rendered.
    package internal(set) var preview: ThumbnailOutcome?
    /// The last path a probe was asked for, so typing elsewhere does not probe again.
    var probedPath: String?
    /// The answer for ``probedPath``: `nil` until it arrives, then `.some(nil)` for a readable image.
    var probeAnswer: String??
    /// Ctrl-S waits for the image probe: the save is sent when ``imageProbed(path:problem:)`` says it is readable.
    var isAwaitingProbe = false
    /// A Tab completion waiting for its directory listing, and the keys typed meanwhile (replayed after it).
    var pendingCompletion: (directory: String, text: String)?
    package internal(set) var queuedKeys: [Key] = []
    let homeDirectory: String

    /// Editing: the restaurant as it was when the form opened (`nil`: a new restaurant).
    package private(set) var original: Restaurant?
    /// Editing: the version the save is made against: the original's, or, after "overwrite with
    /// mine", the other machine's.
    package private(set) var saveBase: Data?
    /// Editing with the image field empty: remove the photo (Ctrl-X) rather than keep it.
    package private(set) var removesImage = false
    /// Editing: the save met a change made on another machine, shown until the user chooses.
    package private(set) var conflict: Restaurant?
    /// What the conflict says: who changed it ("Changed by bob on another machine").
    package private(set) var conflictMessage = ""
    /// The form resolves an edit the server refused at upload (``init(resolving:services:)``):
    /// keeping theirs also drops the refused edit from the outbox.
    package private(set) var resolvesRefusedUpload = false

    /// The size of the image field's live preview.
    package static let previewSize = ThumbnailSize(columns: 8, rows: 4)

    /// - Parameter services: only its home directory is kept, for `~`; the form calls nothing.
    package init(services: FormServices) {
        self.homeDirectory = services.homeDirectory
        var editors: [Field: LineEditor] = [:]
        for field in Field.allCases where field.isTextField {
            editors[field] = LineEditor(multiline: field == .description, maxLength: field.maxLength)
        }
        self.editors = editors
    }

    /// A form filled with values, as `foodpin add` does, so the command line shares the validation:
    /// `RestaurantForm(draft: values, services: .live).validate()`.
    package init(draft: RestaurantDraft, services: FormServices) {
        self.init(services: services)
        setText(draft.name, for: .name)
        setText(draft.type, for: .type)
        setText(draft.location, for: .location)
        setText(draft.phone, for: .phone)
        setText(draft.description, for: .description)
        setText(draft.imagePath ?? "", for: .image)
    }

    /// The form filled with a restaurant to edit (`e`): the image field starts empty, which keeps
    /// the photo; a path replaces it, Ctrl-X removes it.
    package init(editing restaurant: Restaurant, services: FormServices) {
        self.init(services: services)
        original = restaurant
        saveBase = restaurant.systemFields
        setText(restaurant.name, for: .name)
        setText(restaurant.type, for: .type)
        setText(restaurant.location, for: .location)
        setText(restaurant.phone, for: .phone)
        setText(restaurant.description, for: .description)
    }

    /// The form on an edit made offline that the server refused at upload (`mine.refusedEdit`):
    /// filled with the edit, and showing the server's version at once, as after a conflict met
    /// online: `k` keeps theirs (the edit is dropped), `o` saves mine over theirs, Esc edits
    /// (the next save is made against the version the edit was made against, so it meets the
    /// conflict again).
    package init(resolving mine: Restaurant, services: FormServices) {
        self.init(editing: mine, services: services)
        guard let refused = mine.refusedEdit else { return }
        resolvesRefusedUpload = true
        conflict = refused.theirs
        conflictMessage = refused.reason
        if let photo = refused.myPhoto { setText(photo.path, for: .image) }
    }

    /// Whether the form edits an existing restaurant.
    package var isEditing: Bool { original != nil }

    /// What Ctrl-S saves when editing: the draft against ``saveBase``.
    package var edit: RestaurantEdit? {
        original.map { RestaurantEdit(id: $0.id, systemFields: saveBase, draft: draft) }
    }

    package func text(_ field: Field) -> String { editors[field]?.text ?? "" }
    package func editor(_ field: Field) -> LineEditor? { editors[field] }

    /// Whether anything was typed (editing: whether anything differs from the restaurant).
    package var isDirty: Bool {
        guard let original else { return editors.values.contains { !$0.isEmpty } }
        let values: [Field: String] = [.name: original.name, .type: original.type, .location: original.location,
                                       .phone: original.phone, .description: original.description, .image: ""]
        return removesImage || values.contains { text($0.key) != $0.value }
    }

    /// Applies one key.
    package mutating func handle(_ key: Key) -> Action {
        if isSaving { return .none } // the save is in flight; input is kept as it was sent
        if pendingCompletion != nil {
            queuedKeys.append(key) // applied in order once the listing is in
            return .none
        }
        if isConfirmingDiscard {
            isConfirmingDiscard = false
            if key == .character("y") || key == .character("Y") { return .cancel }
            return .none
        }
        if let theirs = conflict {
            return resolveConflict(theirs, key: key)
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
        case .control("x") where original != nil && focus == .image:
            // Remove the photo, or keep it after all; a typed path is cleared either way.
            removesImage.toggle()
            setText("", for: .image)
            errors[.image] = nil
            completions = []
        case .tab:
            if focus == .image {
                switch startCompletion() {
                case .list(let directory): return .listDirectory(path: directory)
                case .done: return .none
                case .nothing: break
                }
            }
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
    package mutating func setText(_ text: String, for field: Field) {
        editors[field]?.setText(text)
    }

    package mutating func focus(_ field: Field) {
        focus = field
        completions = []
    }

    /// The save failed: keep everything, show the error inline (or above the buttons), re-enable editing.
    package mutating func saveFailed(_ error: DiscoverError) {
        isSaving = false
        if error.code == .conflict, let theirs = error.serverVersion, original != nil {
            conflict = theirs
            conflictMessage = error.message
            saveError = nil
        } else if let field = error.field {
            errors[field] = error.message
            focus = field
        } else {
            saveError = error.message
        }
    }

    /// Checks the text fields; returns the inline errors (empty when the fields can be saved).
    /// The image is checked by its probe, off the UI thread.
    package func validate() -> [Field: String] {
        draft.fieldErrors()
    }

    /// The trimmed values, with the image path expanded.
    package var draft: RestaurantDraft {
        let image = trimmed(.image)
        return RestaurantDraft(
            name: trimmed(.name), type: trimmed(.type), location: trimmed(.location), phone: trimmed(.phone),
            description: text(.description).trimmingCharacters(in: .whitespacesAndNewlines),
            imagePath: image.isEmpty ? nil : expandTilde(image), removesImage: image.isEmpty && removesImage)
    }

    /// Call after each key: when the image path changed, returns the expanded path to probe
    /// (off the UI thread) for the live preview.
    package mutating func pathToProbe() -> String? {
        let typed = trimmed(.image)
        let path = typed.isEmpty ? nil : expandTilde(typed)
        guard path != probedPath else { return nil }
        probedPath = path
        probeAnswer = nil
        previewPath = nil
        preview = nil
        return path
    }

    /// A probe answered: `problem` is why `path` is not a readable image, `nil` if it is one.
    ///
    /// Returns the save when Ctrl-S was waiting for this answer and the image is readable.
    /// A stale answer (the path was edited since) is ignored.
    package mutating func imageProbed(path: String, problem: String?) -> Action {
        guard path == probedPath else { return .none }
        probeAnswer = .some(problem)
        if problem == nil { previewPath = path }
        guard isAwaitingProbe else { return .none }
        isAwaitingProbe = false
        if let problem {
            isSaving = false
            errors[.image] = problem
            focus = .image
            return .none
        }
        return .save(draft)
    }

    /// Whether the image is known to probe as readable, so the preview can be rendered.
    package var isPreviewReady: Bool { previewPath != nil && previewPath == probedPath }

    /// A rendered preview arrived; kept only if the path is still the one typed.
    package mutating func previewLoaded(path: String, _ outcome: ThumbnailOutcome) {
        if path == previewPath { preview = outcome }
    }

    // MARK: Internals

    private mutating func submit() -> Action {
        errors = validate()
        saveError = nil
        completions = []
        let image = draft.imagePath
        if errors[.image] == nil, let image, image == probedPath, case .some(.some(let problem)) = probeAnswer {
            errors[.image] = problem
        }
        if let first = errors.keys.min() {
            focus = first
            return .none
        }
        isSaving = true
        guard let image, !(image == probedPath && probeAnswer == .some(nil)) else { return .save(draft) }
        isAwaitingProbe = true
        if image == probedPath { return .none } // its probe is on the way; the answer sends the save
        // Never asked (under --no-images, or the path was typed into a form with the preview off).
        probedPath = image
        probeAnswer = nil
        return .probeImage(path: image)
    }

    /// The other machine's version is shown: `k` keeps theirs, `o` saves mine over it, Esc (or
    /// any other key) goes back to editing, where the next save meets the same conflict.
    private mutating func resolveConflict(_ theirs: Restaurant, key: Key) -> Action {
        conflict = nil
        switch key {
        case .character("k"), .character("K"):
            return .keepTheirs(theirs)
        case .character("o"), .character("O"):
            saveBase = theirs.systemFields ?? saveBase
            return submit()
        default:
            return .none
        }
    }

    private mutating func requestCancel() -> Action {
        if isDirty {
            isConfirmingDiscard = true
            return .none
        }
        return .cancel
    }

    mutating func moveFocus(by delta: Int) {
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
