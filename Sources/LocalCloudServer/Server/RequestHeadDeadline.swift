import NIOHTTPTypes
import NIOCore

/// Closes a connection whose request head has not fully arrived `timeout` after the connection
/// opened or the last response ended: a slowloris client trickling header bytes never gets to
/// hold a connection, while an idle timeout alone would be reset by every trickled byte.
///
/// The clock starts when a response ends, not when its request does: a push stream (SSE) or a
/// slow answer is a request in progress, and closing it after `timeout` would cut every open
/// screen's stream on a timer.
final class RequestHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// Requests whose head arrived and whose response has not ended (pipelining allows several).
    private var inProgress = 0

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            inProgress += 1
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            inProgress = max(0, inProgress - 1)
            if inProgress == 0 { arm(context) }
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    private func arm(_ context: ChannelHandlerContext) {
        disarm()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            channel.close(promise: nil)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
