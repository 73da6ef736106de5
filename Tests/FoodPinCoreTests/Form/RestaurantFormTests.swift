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
        var form = filled()
        form.setText("~/missing.jpg", for: .image)
        #expect(form.handle(.control("s")) == .none)
        #expect(form.errors[.image] == "Not a readable image")
        #expect(form.focus == .image)
        form.setText("~/food.jpg", for: .image)
        guard case .save(let draft) = form.handle(.control("s")) else {
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
        guard case .save = form.handle(.control("s")) else {
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
        _ = form.handle(.tab)
        #expect(form.text(.image) == "~/Pictures/")
        #expect(form.focus == .image)
        type("d", into: &form)
        _ = form.handle(.tab)
        #expect(form.text(.image) == "~/Pictures/drinks.png")
        type("", into: &form)
        var trips = imageForm("~/Pictures/t")
        _ = trips.handle(.tab)
        #expect(trips.text(.image) == "~/Pictures/trips/")
    }

    @Test func tabCompletesTheCommonPrefixThenListsCandidates() {
        var form = imageForm("/home/alice/Pictures/f")
        _ = form.handle(.tab)
        #expect(form.text(.image) == "/home/alice/Pictures/food-")
        _ = form.handle(.tab)
        #expect(form.completions == ["food-1.jpg", "food-2.jpg"])
        #expect(form.focus == .image)
        _ = form.handle(.tab) // the list is shown: Tab moves on
        #expect(form.focus == .save)
    }

    @Test func tabWithoutMatchesMovesOnAndHiddenFilesNeedADot() {
        var form = imageForm("~/zzz")
        _ = form.handle(.tab)
        #expect(form.text(.image) == "~/zzz")
        #expect(form.focus == .save)
        var tilde = imageForm("~")
        _ = tilde.handle(.tab)
        #expect(tilde.text(.image) == "~/")
        _ = tilde.handle(.tab)
        #expect(tilde.text(.image) == "~/Pictures/", ".hidden is not offered without a dot")
        var hidden = imageForm("~/.h")
        _ = hidden.handle(.tab)
        #expect(hidden.text(.image) == "~/.hidden")
    }
}

@Suite struct RestaurantFormPreviewTests {
    @Test func aReadableImagePathAsksForAPreviewOnce() {
        let probes = Recorder<String>()
        let services = FormServices(homeDirectory: "/home/alice", listDirectory: { _ in nil },
                                    probeImage: { path in probes.append(path); return path == "/home/alice/food.jpg" ? nil : "Not an image" })
        var form = RestaurantForm(services: services)
        #expect(form.updatePreview() == nil)
        #expect(probes.count == 0, "an empty path is not probed")
        form.setText("~/food.jp", for: .image)
        #expect(form.updatePreview() == nil)
        form.setText("~/food.jpg", for: .image)
        #expect(form.updatePreview() == "/home/alice/food.jpg")
        #expect(form.previewPath == "/home/alice/food.jpg")
        #expect(form.updatePreview() == nil, "same path: no second probe or load")
        #expect(probes.count == 2)
        form.previewLoaded(path: "/elsewhere.jpg", .noImage)
        #expect(form.preview == nil, "a stale preview is ignored")
        form.previewLoaded(path: "/home/alice/food.jpg", .image(FakeThumbnail(columns: 8, rows: 4)))
        #expect(form.preview != nil)
        form.setText("", for: .image)
        _ = form.updatePreview()
        #expect(form.previewPath == nil && form.preview == nil)
    }
}

@Suite struct RestaurantFormDraftTests {
    @Test func theCommandLineSharesTheValidation() {
        let bad = RestaurantForm(draft: RestaurantDraft(name: " ", type: "Cafe", location: "HK", phone: "abc"), services: .fake())
        #expect(Set(bad.validate().keys) == [.name, .phone])
        let good = RestaurantForm(draft: RestaurantDraft(name: "A", type: "B", location: "C", imagePath: "~/x.jpg"),
                                  services: .fake(images: ["/home/alice/x.jpg"]))
        #expect(good.validate().isEmpty)
        #expect(good.draft.imagePath == "/home/alice/x.jpg")
    }
}
