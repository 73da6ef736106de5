/// Matches change-log rows to the listeners' subscriptions, written once for every SQL store.
///
/// A store's change reader only fetches rows: the changes after the earliest listener's position,
/// the listeners' subscriptions, the shares (when ``needsShares``) and, for the matches only its
/// database can decide (``Question``), a record's parent and a predicate run against one row.
///
/// ```swift
/// let matcher = ChangeMatcher(changes: changes, listeners: listeners, subscriptions: subscriptions, shares: shares)
/// var batches = try matcher.batches { question in try answer(question, db) }   // asked once each
/// if ChangeMatcher.needsSchema(batches) { ChangeMatcher.attach(try currentSchema(db), to: &batches) }
/// ```
///
/// A store whose reads are async answers ``questions()`` first and passes the answers in.
/// Each listener gets its subscriptions' notifications in log order, rows after its own position
/// only; a `firesOnce` subscription fires once and is reported spent.
package struct ChangeMatcher {
    package let changes: [LoggedChange]
    package let listeners: [ChangeListenerPosition]
    package let subscriptions: [String: [WatchedSubscription]]
    package let shares: [StoredShare]

    package init(changes: [LoggedChange], listeners: [ChangeListenerPosition], subscriptions: [String: [WatchedSubscription]],
                 shares: [StoredShare]) {
        self.changes = changes
        self.listeners = listeners
        self.subscriptions = subscriptions
        self.shares = shares
    }

    /// A match only the store's database can decide, for one changed row, user and subscription.
    package struct Question: Sendable {
        package let change: LoggedChange
        package let subscription: WatchedSubscription
        /// Set when the record must lie under one of these hierarchy shares' roots: walk its parents.
        package let grant: ShareRules.Grant?
        /// Whether the subscription's query predicate must be run against the changed row.
        package let testsPredicate: Bool
        /// The change, the user and the subscription: a question is asked once, however many of the
        /// user's streams listen.
        package let key: String
    }

    /// The batches when the log holds nothing after the earliest position: every listener stays.
    package static func nothingNew(for listeners: [ChangeListenerPosition]) -> [Int: ChangeBatch] {
        Dictionary(listeners.map { ($0.id, ChangeBatch(through: $0.after)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether any subscription is in the shared database, so the shares must be read.
    package static func needsShares(_ subscriptions: [String: [WatchedSubscription]]) -> Bool {
        subscriptions.values.contains { $0.contains { $0.row.scope == .shared } }
    }

    /// Every question ``batches(answer:)`` may ask, once each: for a store that answers them ahead.
    package func questions() -> [Question] {
        var seen: Set<String> = []
        var questions: [Question] = []
        forEachCandidate { _, change, reason, subscription, user in
            if let question = Self.question(change, reason: reason, subscription, user: user, shares: shares), seen.insert(question.key).inserted {
                questions.append(question)
            }
        }
        return questions
    }

    /// Each listener's batch (every listener gets one, moved to the last row read).
    /// - Parameter answer: decides a ``Question`` from the database; asked at most once each.
    package func batches(answer: (Question) throws -> Bool) rethrows -> [Int: ChangeBatch] {
        let earliest = listeners.map(\.after).min() ?? 0
        let through = changes.last?.seq ?? earliest
        var batches: [Int: ChangeBatch] = [:]
        var answers: [String: Bool] = [:]
        var spent: [Int: Set<String>] = [:]
        for listener in listeners { batches[listener.id] = ChangeBatch(through: max(listener.after, through)) }
        try forEachCandidate { listener, change, reason, subscription, user in
            guard spent[listener.id]?.contains(subscription.key) != true else { return }
            if let question = Self.question(change, reason: reason, subscription, user: user, shares: shares) {
                let matched: Bool
                if let known = answers[question.key] {
                    matched = known
                } else {
                    matched = try answer(question)
                    answers[question.key] = matched
                }
                guard matched else { return }
            }
            // firesOnce: the subscription goes away once it has fired (the watcher deletes it).
            if subscription.firesOnce {
                spent[listener.id, default: []].insert(subscription.key)
                batches[listener.id]?.spentSubscriptions.append((subscription.row.scope, subscription.row.subscriptionID))
            }
            batches[listener.id]?.notifications.append(subscription.notification(for: change, reason: reason,
                                                                                 containerIdentifier: listener.containerIdentifier))
        }
        return batches
    }

    /// Whether a batch holds a public-database notification, which the watcher checks against the
    /// schema's roles: the store then reads the schema in the same read, as of these changes.
    package static func needsSchema(_ batches: [Int: ChangeBatch]) -> Bool {
        batches.values.contains { $0.notifications.contains { $0.databaseScope == .public } }
    }

    /// Gives `schema` to the batches that ``needsSchema(_:)``.
    package static func attach(_ schema: Schema, to batches: inout [Int: ChangeBatch]) {
        for (id, batch) in batches where batch.notifications.contains(where: { $0.databaseScope == .public }) {
            batches[id]?.schema = schema
        }
    }

    /// Calls `body` for every listener, change after its position (in log order) and subscription
    /// of its user that the change passes without the database.
    private func forEachCandidate(_ body: (ChangeListenerPosition, LoggedChange, Notification.Reason, WatchedSubscription, String) throws -> Void) rethrows {
        for listener in listeners {
            guard let watched = subscriptions[listener.user], !watched.isEmpty else { continue }
            for change in changes where change.seq > listener.after {
                guard let reason = change.reason else { continue }
                for subscription in watched
                where subscription.matchesWithoutPredicate(change, reason: reason, user: listener.user, shares: shares) {
                    try body(listener, change, reason, subscription, listener.user)
                }
            }
        }
    }

    /// What is left for the database once the change passed `subscription`'s kind, scope, type and
    /// zone; `nil` when nothing is.
    private static func question(_ change: LoggedChange, reason: Notification.Reason, _ subscription: WatchedSubscription,
                                 user: String, shares: [StoredShare]) -> Question? {
        let grant = subscription.hierarchyGrant(for: change, reason: reason, user: user, shares: shares)
        let testsPredicate = subscription.row.kind == Subscription.SubscriptionType.query.rawValue
            && reason != .recordDeleted && subscription.predicate != .truePredicate
        guard grant != nil || testsPredicate else { return nil }
        return Question(change: change, subscription: subscription, grant: grant, testsPredicate: testsPredicate,
                        key: "\(change.seq)\u{0}\(user)\u{0}\(subscription.key)")
    }
}
