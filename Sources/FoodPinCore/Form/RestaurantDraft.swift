import Foundation

/// What the user typed in the form, validated and trimmed, ready to save.
package struct RestaurantDraft: Hashable, Sendable {
    package var name: String
    package var type: String
    package var location: String
    package var phone: String
    package var description: String
    /// The image file's path with `~` expanded, or `nil` for no image (an edit: keep the photo it has).
    package var imagePath: String?
    /// An edit: remove the photo the restaurant has (``imagePath`` is then `nil`).
    package var removesImage = false

    package init(name: String, type: String, location: String, phone: String = "",
                description: String = "", imagePath: String? = nil, removesImage: Bool = false) {
        self.name = name
        self.type = type
        self.location = location
        self.phone = phone
        self.description = description
        self.imagePath = imagePath
        self.removesImage = removesImage
    }
}

extension RestaurantDraft {
    /// The one check of the text fields, for the form's Ctrl-S and for every save: required
    /// fields, lengths and the phone's characters. Reads no file; the image is checked by
    /// decoding it when it is scaled (and, in the form, by its probe).
    package func fieldErrors() -> [RestaurantForm.Field: String] {
        var errors: [RestaurantForm.Field: String] = [:]
        let values: [RestaurantForm.Field: String] = [
            .name: name, .type: type, .location: location, .phone: phone, .description: description,
        ]
        for field in [RestaurantForm.Field.name, .type, .location]
        where values[field, default: ""].trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            errors[field] = "\(field.label) is required"
        }
        for (field, value) in values where value.count > field.maxLength {
            errors[field] = "\(field.label) is too long (at most \(field.maxLength) characters)"
        }
        if errors[.phone] == nil, !phone.allSatisfy({ $0.isASCII && ($0.isNumber || " +-()".contains($0)) }) {
            errors[.phone] = "Phone may hold only digits, spaces and + - ( )"
        }
        return errors
    }

    /// Every field's problem on one line, in field order: `Name is required; Phone may hold only …`.
    package static func message(for errors: [RestaurantForm.Field: String]) -> String {
        errors.sorted { $0.key < $1.key }
            .map { $0.value.contains($0.key.label) ? $0.value : "\($0.key.label): \($0.value)" }
            .joined(separator: "; ")
    }
}
