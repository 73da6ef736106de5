import LocalCloud
import NIOSSL
import PostgresNIO

extension PostgresTLS {
    /// Why a connection failed, in one line, when TLS is the reason; nil otherwise.
    ///
    /// NIOSSL's errors say what BoringSSL saw (`CERTIFICATE_VERIFY_FAILED`); this says which
    /// setting of the URL it comes from, so the reader knows what to change.
    static func failureReason(_ error: any Error, url: PostgresURL) -> String? {
        var current: (any Error)? = error
        var depth = 0
        while let error = current, depth < 8 {
            if let reason = reason(for: error, url: url) { return reason }
            if let psql = error as? PSQLError {
                current = psql.underlying
            } else if let cloud = error as? CloudError {
                current = cloud.cause
            } else {
                current = nil
            }
            depth += 1
        }
        return nil
    }

    private static func reason(for error: any Error, url: PostgresURL) -> String? {
        if let psql = error as? PSQLError, psql.code == .sslUnsupported {
            return "the server does not accept TLS connections, which sslmode=\(url.sslMode.rawValue) requires"
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the server's certificate is not for host \(url.host) (sslmode=verify-full checks the host name against the certificate)"
        }
        if let ssl = error as? NIOSSLError {
            switch ssl {
            case .handshakeFailed(let cause):
                let text = "\(cause)"
                if text.contains("CERTIFICATE_VERIFY_FAILED") {
                    let trusted = url.sslRootCert == PostgresURL.systemRootCertificates || url.sslRootCert == nil
                        ? "a CA this system trusts" : "the CA in sslrootcert (\(url.sslRootCert ?? ""))"
                    return "the server's certificate is not signed by \(trusted)"
                }
                if text.contains("CERTIFICATE_REQUIRED") || (text.contains("HANDSHAKE_FAILURE") && url.sslCert == nil) {
                    return "the TLS handshake failed: the server asks for a client certificate (sslcert and sslkey)"
                }
                if text.contains("TLSV1_ALERT_UNKNOWN_CA") || text.contains("BAD_CERTIFICATE") {
                    return "the server refused the client certificate in sslcert (\(url.sslCert ?? "")): it is not signed by a CA the server trusts"
                }
                return "the TLS handshake failed: \(text)"
            case .uncleanShutdown:
                return nil
            default:
                return "TLS failed: \(ssl)"
            }
        }
        return nil
    }
}
