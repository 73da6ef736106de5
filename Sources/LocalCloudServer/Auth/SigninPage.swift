import Foundation

/// The sign-in page: a plain form, every interpolated value HTML-escaped.
enum SigninPage {
    static func form(container: String, error: String? = nil) -> String {
        let action = "/auth/1/\(escape(container))/signin"
        let message = error.map { #"<p class="error" role="alert">\#(escape($0))</p>"# } ?? ""
        return page(title: "Sign in to \(escape(container))", body: """
            \(message)
            <form method="post" action="\(action)">
              <label>User <input name="user" autocomplete="username" required autofocus></label>
              <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
              <button type="submit">Sign in</button>
            </form>
            """)
    }

    static func signedIn(container: String, user: String, token: String) -> String {
        page(title: "Signed in to \(escape(container))", body: """
            <p>Signed in as <strong>\(escape(user))</strong>. Your web auth token (send it as <code>ckWebAuthToken</code>):</p>
            <textarea readonly rows="4" cols="70">\(escape(token))</textarea>
            """)
    }

    static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>\(title)</title>
        <style>body{font-family:system-ui,sans-serif;max-width:32em;margin:3em auto;padding:0 1em}
        label{display:block;margin:.8em 0}input{display:block;width:100%;padding:.4em}
        .error{color:#b00020}textarea{width:100%}</style></head>
        <body><h1>\(title)</h1>
        \(body)
        </body></html>
        """
    }

    /// `&`, `<`, `>`, `"` and `'` as entities: text from requests is data, never markup.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
