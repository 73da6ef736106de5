import CVips
import CVipsShim
import Foundation

/// libvips, started once per process and tuned for an interactive app.
///
/// libvips is thread-safe once started; starting it is not, so every entry point
/// calls ``start()`` first, which runs the setup exactly once (a `static let`).
enum Vips {
    /// Whether libvips started; the reason when it did not.
    private static let started: Result<Void, ImageError> = {
        guard cvips_init("foodpin") == 0 else {
            return .failure(ImageError(.decodeFailed, "The image library (libvips) failed to start.", detail: takeError()))
        }
        // One worker per pipeline keeps a background thumbnail from starving the UI thread
        // on small machines; the operation cache is off because every call reads a new file
        // and cached decodes would only hold memory (and could serve a stale file).
        cvips_configure(1, 0, 0, 0)
        return .success(())
    }()

    static func start() throws(ImageError) {
        try started.get()
    }

    /// Takes (and clears) libvips' error text. The buffer is process-wide, so under
    /// concurrency it may mix messages; it is only ever used as detail, never to decide.
    @discardableResult
    static func takeError() -> String {
        guard let text = cvips_error_copy() else { return "" }
        defer { cvips_free(text) }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a libvips call that returns 0 on success, turning failure into an ``ImageError``.
    static func check(_ result: Int32, _ code: ImageError.Code, _ message: @autoclosure () -> String, path: String? = nil) throws(ImageError) {
        if result != 0 {
            throw ImageError(code, message(), path: path, detail: takeError())
        }
    }
}
