import Hummingbird

/// What a console handler answers: a page, a redirect after a change, or a response of its own.
enum ConsoleReply {
    case page(template: String, title: String, section: String, context: [String: Any])
    case redirect(String)
    case response(Response)
}
