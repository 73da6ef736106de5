import Hummingbird

// subscriptions/list, subscriptions/lookup, subscriptions/modify: see Push/.
extension CloudServer {
    func addSubscriptionRoutes(to router: Router<ServerRequestContext>) {}
}
