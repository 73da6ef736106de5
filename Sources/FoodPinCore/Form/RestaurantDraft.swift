/// What the user typed in the form, validated and trimmed, ready to save.
public struct RestaurantDraft: Hashable, Sendable {
    public var name: String
    public var type: String
    public var location: String
    public var phone: String
    public var description: String
    /// The image file's path with `~` expanded, or `nil` for no image.
    public var imagePath: String?

    public init(name: String, type: String, location: String, phone: String = "",
                description: String = "", imagePath: String? = nil) {
        self.name = name
        self.type = type
        self.location = location
        self.phone = phone
        self.description = description
        self.imagePath = imagePath
    }
}
