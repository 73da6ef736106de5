import LocalCloud

extension DiscoverError {
    /// The one mapping from a store or image pipeline failure to what the screen and the CLI say.
    ///
    /// ```swift
    /// DiscoverError(CloudError(.notAuthenticated, "No account"), while: .loadFailed).message
    /// // "Not signed in: No account", the same for a page load, a save, a delete and `foodpin add`
    /// ```
    ///
    /// `code` says what was being done; it is kept unless the failure has a code of its own
    /// (permission, not found, a bad image). Image errors belong to the form's image field; an asset
    /// over the store's size limit does too, since a smaller picture fixes it. A ``DiscoverError``
    /// passes through unchanged.
    package init(_ error: any Error, while code: Code) {
        switch error {
        case let error as DiscoverError:
            self = error
        case let error as ImageError:
            self.init(.invalidImage, error.message, field: .image)
        case let error as CloudError:
            switch error.code {
            case .permissionFailure:
                let message = error.message.hasPrefix("Permission Failure") ? error.message : "Permission Failure: \(error.readableMessage)"
                self.init(.permissionDenied, message)
            case .notAuthenticated where error.cause is ServerRefusedCredentials:
                self.init(.signedOut, "Signed out: run foodpin login")
            case .notAuthenticated:
                self.init(.permissionDenied, "Not signed in: \(error.readableMessage)")
            case .networkUnavailable:
                // The server was never reached: the banner says only "offline", the message why (the CLI once printed nothing).
                self.init(.offline, error.message)
                isUnreachable = true
            case .networkFailure:
                // Connected, then broken: a timeout, a refused certificate, a proxy's HTML. Say which.
                self.init(.offline, error.message)
            case .unknownItem:
                self.init(.notFound, error.message)
            case .serverRecordChanged where error.serverRecord != nil:
                let theirs = error.serverRecord.map(RestaurantRecord.restaurant(from:))
                let who = error.serverRecord?.lastModifiedUserRecordID.map { " by " + RestaurantRecord.userName(fromRecordName: $0.recordName) } ?? ""
                self.init(.conflict, "Changed\(who) on another machine", serverVersion: theirs)
            case .quotaExceeded where error.message.hasPrefix("The disk is full"),
                 .limitExceeded where error.message.hasPrefix("The disk is full"):
                // The local disk, or the server's (QUOTA_EXCEEDED comes back as limitExceeded): say it plainly.
                self.init(code, error.message)
            case .limitExceeded where error.message.hasPrefix("Asset"), .assetFileNotFound:
                self.init(code, error.message, field: .image)
            default:
                self.init(code, "\(error.code.name): \(error.readableMessage)")
            }
        default:
            self.init(code, CloudError.readableMessage(for: error))
        }
    }
}
