/// Runs the work `update` asks for, off the UI thread, and posts the results back.
///
/// `perform` is called on the UI thread and must return at once: start a task, post later.
/// The LocalCloud-backed handler lives with the app; tests use a recording one.
package protocol EffectHandler: AnyObject {
    func perform(_ effect: Effect, sink: MessageSink<Msg>)
}
