/// The console's files, embedded at build time from `Console/Resources` (SwiftPM's `embedInCode`).
enum ConsoleResources {
    static let templates: [(String, [UInt8])] = [
        ("layout", PackageResources.layout_mustache),
        ("signin", PackageResources.signin_mustache),
        ("overview", PackageResources.overview_mustache),
        ("schema", PackageResources.schema_mustache),
        ("deploy", PackageResources.deploy_mustache),
        ("records", PackageResources.records_mustache),
        ("record", PackageResources.record_mustache),
        ("conflict", PackageResources.conflict_mustache),
        ("zones", PackageResources.zones_mustache),
        ("people", PackageResources.people_mustache),
        ("logs", PackageResources.logs_mustache),
        ("telemetry", PackageResources.telemetry_mustache),
        ("audit", PackageResources.audit_mustache),
        ("message", PackageResources.message_mustache),
    ]

    /// `/console/static/NAME`: the stylesheet and the script, with their content types.
    static func staticFile(_ name: String) -> (bytes: [UInt8], contentType: String)? {
        switch name {
        case "console.css": (PackageResources.console_css, "text/css; charset=utf-8")
        case "console.js": (PackageResources.console_js, "text/javascript; charset=utf-8")
        default: nil
        }
    }
}
