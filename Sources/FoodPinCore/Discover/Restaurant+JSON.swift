import Foundation

/// `foodpin list --json`: one object per restaurant with the documented keys.
///
/// ```json
/// {"recordName":"…","name":"Cafe Deadend","type":"Coffee & Tea","location":"Hong Kong",
///  "phone":"…","description":"…","createdAt":"2026-11-22T01:50:00Z","createdBy":"alice","imageFile":null}
/// ```
extension Restaurant: Encodable {
    enum JSONKeys: String, CodingKey {
        case recordName, name, type, location, phone, description, createdAt, createdBy, imageFile
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKeys.self)
        try container.encode(id, forKey: .recordName)
        try container.encode(name, forKey: .name)
        try container.encode(type, forKey: .type)
        try container.encode(location, forKey: .location)
        try container.encode(phone, forKey: .phone)
        try container.encode(description, forKey: .description)
        try container.encode(createdAt.formatted(.iso8601), forKey: .createdAt)
        try container.encode(createdBy, forKey: .createdBy)
        if let imageFile { try container.encode(imageFile.path, forKey: .imageFile) } else { try container.encodeNil(forKey: .imageFile) }
    }
}
