import LocalCloud

/// The restaurant every measure saves: five string fields, the Discover list's shape.
///
/// A type rather than main.swift globals, so `seed` and `notifications` can use it before
/// main.swift's top-level code has initialized its own globals.
enum BenchRestaurant {
    static let types = ["Cafe", "Bistro", "Tea House", "Diner", "Bakery"]

    static func record(_ i: Int) -> LocalCloud.Record {
        let record = LocalCloud.Record(recordType: "Restaurant")
        record["name"] = "Restaurant \(i)"
        record["type"] = types[i % types.count]
        record["location"] = "\(i % 90) Queen's Road Central, Hong Kong"
        record["phone"] = "+852 \(20_000_000 + i)"
        record["description"] = "A well-liked place, number \(i), known for its coffee and cakes."
        return record
    }
}
