import Foundation
import Testing
@testable import FoodPinCore

/// `e`: the form in edit mode, the save in place, the conflict choice and the refusal, as pure
/// update and view steps.
@Suite struct EditTests {
    /// Three restaurants by alice (r0 at the top), r1 with a version tag as a store would give it.
    func state(width: Int = 80, height: Int = 24) -> AppState {
        var items = restaurants(0..<3)
        items[1].phone = "555 0100"
        items[1].changeTag = "tag-1"
        items[1].systemFields = Data("r1-v1".utf8)
        return AppState.loaded(items, width: width, height: height)
    }

    @Test func eOpensTheFormFilledWithTheSelectedRestaurant() {
        var state = state()
        send(&state, .key(.down))
        let effects = send(&state, .key(.character("e")))
        #expect(effects.allSatisfy { if case .loadThumbnails = $0 { true } else { false } }, "nothing is saved or fetched: \(effects)")
        #expect(state.screen == .form)
        let form = state.form
        #expect(form?.isEditing == true)
        #expect(form?.text(.name) == "Restaurant r1")
        #expect(form?.text(.phone) == "555 0100")
        #expect(form?.text(.image) == "", "an empty image field keeps the photo")
        let lines = view(state, width: 80, height: 24).lines
        #expect(lines[0].contains("FoodPin · Edit Restaurant"))
        #expect(lines.contains { $0.contains("empty keeps the photo; a path replaces it, ^X removes it") })
        #expect(lines[23].contains("^X remove photo"))
    }

    @Test func savingSendsTheEditAgainstTheVersionShownAndShowsItInPlace() {
        var state = state()
        send(&state, .key(.down), .key(.character("e")))
        for _ in 0..<13 { send(&state, .key(.backspace)) }
        for message in keys("Cafe Fixed") { send(&state, message) }
        let effects = send(&state, .key(.control("s")))
        guard case .saveEdit(let edit)? = effects.first else {
            Issue.record("Ctrl-S sent \(effects)")
            return
        }
        #expect(edit.id == "r1")
        #expect(edit.systemFields == Data("r1-v1".utf8), "the version the form opened on: its change tag")
        #expect(edit.draft.name == "Cafe Fixed")
        #expect(edit.draft.imagePath == nil && !edit.draft.removesImage, "the photo is kept")

        var saved = state.list.items[1]
        saved.name = "Cafe Fixed"
        saved.changeTag = "tag-2"
        saved.createdAt = testNow   // a store's answer; the row keeps its place and date
        let after = send(&state, .editSucceeded(saved))
        #expect(state.screen == .list)
        #expect(state.list.items.map(\.id) == ["r0", "r1", "r2"], "edited in place, not moved to the top")
        #expect(state.list.items[1].name == "Cafe Fixed")
        #expect(state.list.items[1].createdAt == testNow.addingTimeInterval(-120), "the creation date stays")
        #expect(state.list.selected?.id == "r1")
        #expect(after.contains(.forgetThumbnails(ids: ["r1"])), "the photo may be new: its thumbnail loads again")
        #expect(view(state, width: 80, height: 24).lines.contains { $0.contains("Cafe Fixed") })
    }

    @Test func ctrlXRemovesThePhotoAndATypedPathReplacesIt() {
        var state = state()
        send(&state, .key(.character("e")))
        for _ in 0..<5 { send(&state, .key(.tab)) }   // name → image
        #expect(state.form?.focus == .image)
        send(&state, .key(.control("x")))
        #expect(state.form?.draft.removesImage == true)
        #expect(view(state, width: 80, height: 24).lines.contains { $0.contains("the photo is removed on save (^X keeps it)") })
        send(&state, .key(.control("x")))
        #expect(state.form?.draft.removesImage == false, "^X again keeps it")
        send(&state, .key(.control("x")))
        for message in keys("/tmp/new.jpg") { send(&state, message) }
        #expect(state.form?.draft.imagePath == "/tmp/new.jpg")
        #expect(state.form?.draft.removesImage == false, "a path replaces the photo rather than removing it")
    }

    @Test func someoneElsesRestaurantIsRefusedOnOneLine() {
        var items = restaurants(0..<2)
        items[0].createdBy = "bob"
        var state = AppState.loaded(items, width: 80, height: 24)
        #expect(send(&state, .key(.character("e"))) == [])
        #expect(state.screen == .list, "no form opens")
        let line = view(state, width: 80, height: 24).lines[1]
        #expect(line.contains("✗ Permission Failure: “Restaurant r0” was added by bob; only they can edit it"))
        #expect(state.form == nil)
    }

    @Test func aRowWaitingToUploadCannotBeEditedYet() {
        var items = restaurants(0..<2)
        items[0].isWaiting = true
        var state = AppState.loaded(items, width: 80, height: 24)
        send(&state, .key(.character("e")))
        #expect(state.form == nil)
        #expect(view(state, width: 80, height: 24).lines[1].contains("has not reached the server yet; edit it once it has"))
    }

    @Test func eInTheDetailViewEditsThatRestaurantAndReturnsThere() {
        var state = state()
        send(&state, .key(.down), .key(.enter))
        #expect(state.screen == .detail(id: "r1"))
        send(&state, .key(.character("e")))
        #expect(state.form?.original?.id == "r1")
        send(&state, .key(.escape))
        #expect(state.screen == .detail(id: "r1"), "an unchanged form closes at once, back to the detail view")
    }

    /// A conflicting save: the other machine's values are shown beside mine until the user chooses.
    func conflicted() -> (AppState, RestaurantEdit, Restaurant) {
        var state = state()
        send(&state, .key(.down), .key(.character("e")))
        for message in keys(" Bis") { send(&state, message) }
        guard case .saveEdit(let edit)? = send(&state, .key(.control("s"))).first else { fatalError("no save") }
        var theirs = state.list.items[1]
        theirs.name = "Bob's Name"
        theirs.changeTag = "tag-bob"
        theirs.systemFields = Data("r1-bob".utf8)
        send(&state, .saveFailed(DiscoverError(.conflict, "Changed by bob on another machine", serverVersion: theirs)))
        return (state, edit, theirs)
    }

    @Test func aConflictShowsTheirVersionAndNeverOverwritesSilently() {
        let (state, _, _) = conflicted()
        #expect(state.screen == .form, "the form stays, with my input")
        #expect(state.form?.text(.name) == "Restaurant r1 Bis")
        let lines = view(state, width: 100, height: 24).lines
        #expect(lines[1].contains("✗ Changed by bob on another machine: k keeps theirs, o overwrites with mine, Esc edits"))
        #expect(lines.contains { $0.contains("theirs: Bob's Name") })
    }

    @Test func overwritingSavesMineAgainstTheirVersion() {
        var (state, edit, theirs) = conflicted()
        let effects = send(&state, .key(.character("o")))
        #expect(effects == [.saveEdit(RestaurantEdit(id: "r1", systemFields: theirs.systemFields, draft: edit.draft))],
                "the same values, now against their change tag")
        #expect(state.form?.conflict == nil)
        #expect(state.form?.isSaving == true)
    }

    @Test func keepingTheirsClosesTheFormAndShowsTheirVersionInPlace() {
        var (state, _, theirs) = conflicted()
        let effects = send(&state, .key(.character("k")))
        #expect(state.screen == .list)
        #expect(state.list.items[1].name == theirs.name)
        #expect(state.list.items.map(\.id) == ["r0", "r1", "r2"])
        #expect(effects.contains(.forgetThumbnails(ids: ["r1"])))
    }

    @Test func escAfterAConflictGoesBackToEditingAndTheNextSaveMeetsItAgain() {
        var (state, edit, _) = conflicted()
        #expect(send(&state, .key(.escape)) == [])
        #expect(state.form?.conflict == nil)
        #expect(state.screen == .form)
        #expect(send(&state, .key(.control("s"))) == [.saveEdit(edit)], "still against the version I opened")
    }

    @Test func anOffLineEditShowsWaitingInPlace() {
        var state = state()
        send(&state, .key(.down), .key(.character("e")), .key(.control("s")))
        var queued = state.list.items[1]
        queued.isWaiting = true
        send(&state, .editSucceeded(queued))
        #expect(state.list.items.map(\.id) == ["r0", "r1", "r2"])
        let lines = view(state, width: 80, height: 24).lines
        #expect(lines[2 + 3 + 2].contains("⧗ waiting to upload"), "the edited row, where it was")
    }
}
