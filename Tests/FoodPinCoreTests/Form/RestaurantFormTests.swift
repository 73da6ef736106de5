import Testing
@testable import FoodPinCore

@Suite struct RestaurantFormTests {
    typealias Entry = FormServices.DirectoryEntry

    func type(_ text: String, into form: inout RestaurantForm) {
        for c in text { _ = form.handle(.character(c)) }
    }

    func filled(services: FormServices = .fake(images: ["/home/alice/food.jpg"])) -> RestaurantForm {
        var form = RestaurantForm(services: services)
        type("Cafe Deadend", into: &form)
        _ = form.handle(.tab)
        type("Coffee & Tea", into: &form)
        _ = form.handle(.tab)
        type("Hong Kong", into: &form)
        return form
    }

    @Test func requiredFieldsMustNotBeBlank() {
        var form = RestaurantForm(services: .fake())
        type("   ", into: &form)
        #expect(form.handle(.control("s")) == .none)
        #expect(form.errors[.name] == "Name is required")
        #expect(form.errors[.type] == "Type is required")
        #expect(form.errors[.location] == "Location is required")
        #expect(form.focus == .name, "focus goes to the first field in error")
        #expect(form.text(.name) == "   ", "nothing typed is lost")
    }

    @Test func phoneAllowsDigitsSpacesAndPunctuationOnly() {
        var form = filled()
        form.setText("+852 (2) 555-1234", for: .phone)
        #expect(form.validate()[.phone] == nil)
        form.setText("call me", for: .phone)
        #expect(form.validate()[.phone] != nil)
        form.setText("１２３", for: .phone)
        #expect(form.validate()[.phone] != nil, "full-width digits are not phone digits")
    }

    @Test func lengthLimits() {
        var form = filled()
        form.editors[.name] = LineEditor(String(repeating: "x", count: 150), maxLength: 1000)
        #expect(form.validate()[.name]?.contains("too long") == true)
        var typed = RestaurantForm(services: .fake())
        type(String(repeating: "y", count: 150), into: &typed)
        #expect(typed.text(.name).count == 100, "the editor refuses input past the limit")
    }

    @Test func imageMustBeReadableAndTildeExpands() {
        let services = FormServices.fake(images: ["/home/alice/food.jpg"])
        var form = filled()
        form.setText("~/missing.jpg", for: .image)
        #expect(form.handle(.control("s")) == .probeImage(path: "/home/alice/missing.jpg"), "the probe runs off the UI thread")
        #expect(form.isSaving, "keys wait while the probe answers")
        #expect(form.imageProbed(path: "/home/alice/missing.jpg", problem: "Not a readable image") == .none)
        #expect(form.errors[.image] == "Not a readable image")
        #expect(form.focus == .image)
        #expect(!form.isSaving)
        #expect(form.handle(.control("s")) == .none, "the answer is remembered: no second probe")
        #expect(form.errors[.image] == "Not a readable image")
        form.setText("~/food.jpg", for: .image)
        guard case .save(let draft) = form.press(.control("s"), answering: services) else {
            Issue.record("a valid form saves")
            return
        }
        #expect(draft.imagePath == "/home/alice/food.jpg")
        #expect(draft == RestaurantDraft(name: "Cafe Deadend", type: "Coffee & Tea", location: "Hong Kong",
                                         imagePath: "/home/alice/food.jpg"))
        #expect(form.isSaving)
    }

    @Test func enterOnSaveSavesAndUtf8IsKept() {
        var form = RestaurantForm(services: .fake())
        type("寿司 🍣 Café", into: &form)
        _ = form.handle(.down)
        type("Sushi", into: &form)
        _ = form.handle(.enter) // Enter on a text field moves on
        type("東京", into: &form)
        form.focus(.save)
        guard case .save(let draft) = form.handle(.enter) else {
            Issue.record("Enter on [Save] saves")
            return
        }
        #expect(draft.name == "寿司 🍣 Café")
        #expect(draft.location == "東京")
    }

    @Test func tabShiftTabAndArrowsMoveBetweenFields() {
        var form = RestaurantForm(services: .fake())
        _ = form.handle(.tab)
        #expect(form.focus == .type)
        _ = form.handle(.down)
        _ = form.handle(.down)
        #expect(form.focus == .phone)
        _ = form.handle(.backTab)
        _ = form.handle(.up)
        #expect(form.focus == .type)
        _ = form.handle(.up)
        _ = form.handle(.up)
        #expect(form.focus == .cancel, "moving wraps around")
    }

    @Test func descriptionIsMultiline() {
        var form = RestaurantForm(services: .fake())
        form.focus(.description)
        type("Great", into: &form)
        _ = form.handle(.enter)
        type("coffee", into: &form)
        #expect(form.text(.description) == "Great\ncoffee")
        #expect(form.focus == .description)
    }

    @Test func escapeAsksFirstWhenSomethingWasTyped() {
        var empty = RestaurantForm(services: .fake())
        #expect(empty.handle(.escape) == .cancel)

        var form = filled()
        #expect(form.handle(.escape) == .none)
        #expect(form.isConfirmingDiscard)
        #expect(form.handle(.character("n")) == .none)
        #expect(!form.isConfirmingDiscard)
        #expect(form.text(.name) == "Cafe Deadend", "declining keeps everything")
        _ = form.handle(.escape)
        #expect(form.handle(.character("y")) == .cancel)
    }

    @Test func aFailedSaveKeepsInputAndShowsTheError() {
        var form = filled()
        form.setText("/home/alice/food.jpg", for: .image)
        guard case .save = form.press(.control("s"), answering: .fake(images: ["/home/alice/food.jpg"])) else {
            Issue.record("should save")
            return
        }
        #expect(form.handle(.character("z")) == .none)
        #expect(form.text(.location) == "Hong Kong", "keys are ignored while saving")
        form.saveFailed(DiscoverError(.invalidImage, "The image is truncated", field: .image))
        #expect(!form.isSaving)
        #expect(form.errors[.image] == "The image is truncated")
        #expect(form.focus == .image)
        #expect(form.text(.image) == "/home/alice/food.jpg")
        form.saveFailed(DiscoverError(.permissionDenied, "Permission Failure"))
        #expect(form.saveError == "Permission Failure")
        #expect(form.text(.name) == "Cafe Deadend")
    }

    @Test func editingAFieldClearsItsError() {
        var form = RestaurantForm(services: .fake())
        _ = form.handle(.control("s"))
        #expect(form.errors[.name] != nil)
        type("A", into: &form)
        #expect(form.errors[.name] == nil)
        #expect(form.errors[.type] != nil)
    }

    // MARK: Path completion

    let services = FormServices.fake(directories: [
        "/home/alice": [Entry(name: "Pictures", isDirectory: true), Entry(name: ".hidden", isDirectory: false)],
        "/home/alice/Pictures": [
            Entry(name: "food-1.jpg", isDirectory: false), Entry(name: "food-2.jpg", isDirectory: false),
            Entry(name: "drinks.png", isDirectory: false), Entry(name: "trips", isDirectory: true),
        ],
    ])

    func imageForm(_ text: String) -> RestaurantForm {
        var form = RestaurantForm(services: services)
        form.focus(.image)
        type(text, into: &form)
        return form
    }

    @Test func tabCompletesAUniqueMatchAndDirectoriesGetASlash() {
        var form = imageForm("~/Pi")
        _ = form.press(.tab, answering: services)
        #expect(form.text(.image) == "~/Pictures/")
        #expect(form.focus == .image)
        type("d", into: &form)
        _ = form.press(.tab, answering: services)
        #expect(form.text(.image) == "~/Pictures/drinks.png")
        type("", into: &form)
        var trips = imageForm("~/Pictures/t")
        _ = trips.press(.tab, answering: services)
        #expect(trips.text(.image) == "~/Pictures/trips/")
    }

    @Test func tabCompletesTheCommonPrefixThenListsCandidates() {
        var form = imageForm("/home/alice/Pictures/f")
        _ = form.press(.tab, answering: services)
        #expect(form.text(.image) == "/home/alice/Pictures/food-")
        _ = form.press(.tab, answering: services)
        #expect(form.completions == ["food-1.jpg", "food-2.jpg"])
        #expect(form.focus == .image)
        _ = form.press(.tab, answering: services) // the list is shown: Tab moves on
        #expect(form.focus == .save)
    }

    @Test func tabWithoutMatchesMovesOnAndHiddenFilesNeedADot() {
        var form = imageForm("~/zzz")
        _ = form.press(.tab, answering: services)
        #expect(form.text(.image) == "~/zzz")
        #expect(form.focus == .save)
        var tilde = imageForm("~")
        _ = tilde.press(.tab, answering: services)
        #expect(tilde.text(.image) == "~/")
        _ = tilde.press(.tab, answering: services)
        #expect(tilde.text(.image) == "~/Pictures/", ".hidden is not offered without a dot")
        var hidden = imageForm("~/.h")
        _ = hidden.press(.tab, answering: services)
        #expect(hidden.text(.image) == "~/.hidden")
    }
}

@Suite struct RestaurantFormPreviewTests {
    @Test func aChangedImagePathIsProbedOnceAndOnlyAReadableOneIsPreviewed() {
        var form = RestaurantForm(services: .fake())
        #expect(form.pathToProbe() == nil, "an empty path is not probed")
        form.setText("~/food.jp", for: .image)
        #expect(form.pathToProbe() == "/home/alice/food.jp")
        _ = form.imageProbed(path: "/home/alice/food.jp", problem: "No such file")
        #expect(form.previewPath == nil)
        form.setText("~/food.jpg", for: .image)
        #expect(form.pathToProbe() == "/home/alice/food.jpg")
        #expect(form.pathToProbe() == nil, "same path: no second probe")
        _ = form.imageProbed(path: "/home/alice/food.jp", problem: nil)
        #expect(form.previewPath == nil, "a stale answer is ignored")
        _ = form.imageProbed(path: "/home/alice/food.jpg", problem: nil)
        #expect(form.previewPath == "/home/alice/food.jpg" && form.isPreviewReady)
        form.previewLoaded(path: "/elsewhere.jpg", .noImage)
        #expect(form.preview == nil, "a stale preview is ignored")
        form.previewLoaded(path: "/home/alice/food.jpg", .image(FakeThumbnail(columns: 8, rows: 4)))
        #expect(form.preview != nil)
        form.setText("", for: .image)
        _ = form.pathToProbe()
        #expect(form.previewPath == nil && form.preview == nil)
    }

    @Test func keysTypedWhileTheListingIsOnItsWayApplyAfterTheCompletion() {
        var form = RestaurantForm(services: .fake())
        form.focus(.image)
        for c in "~/Pi" { _ = form.handle(.character(c)) }
        #expect(form.handle(.tab) == .listDirectory(path: "/home/alice/"))
        for c in "x" { _ = form.handle(.character(c)) }
        _ = form.handle(.tab)
        #expect(form.text(.image) == "~/Pi", "held until the listing answers")
        #expect(form.directoryListed("/elsewhere/", entries: []) == [], "an answer for another directory is ignored")
        let queued = form.directoryListed("/home/alice/", entries: [.init(name: "Pictures", isDirectory: true)])
        #expect(queued == [.character("x"), .tab])
        #expect(form.text(.image) == "~/Pictures/")
        for key in queued { _ = form.handle(key) }
        #expect(form.text(.image) == "~/Pictures/x")
    }
}

@Suite struct RestaurantFormDraftTests {
    @Test func theCommandLineSharesTheValidation() {
        let bad = RestaurantDraft(name: " ", type: "Cafe", location: "HK", phone: "abc")
        #expect(Set(bad.fieldErrors().keys) == [.name, .phone])
        #expect(RestaurantForm(draft: bad, services: .fake()).validate() == bad.fieldErrors())
        let good = RestaurantForm(draft: RestaurantDraft(name: "A", type: "B", location: "C", imagePath: "~/x.jpg"),
                                  services: .fake())
        #expect(good.validate().isEmpty)
        #expect(good.draft.imagePath == "/home/alice/x.jpg")
        #expect(good.draft.fieldErrors().isEmpty)
    }
}
