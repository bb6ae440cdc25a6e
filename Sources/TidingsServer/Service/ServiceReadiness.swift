import Foundation
import TidingsHTTP
import TidingsPush

/// The checks behind tidingsd's `GET /readyz`: what must hold before a load balancer sends it traffic.
///
/// Each is built from closures, so ``TidingsService`` wires in its store and workers and tests pass ones
/// that fail. Failure messages name the check and the app, never a file path or key material: `/readyz`
/// may be served on the public API address.
public enum ServiceReadiness {
    /// `store`: the store takes a write. A store that still reads but cannot write (locked past its busy
    /// timeout, read-only, out of space) would accept nothing that matters: installations, events, sends.
    public static func storeAcceptsWrites(_ write: @escaping @Sendable () throws -> Void) -> ReadinessCheck {
        ReadinessCheck("store") {
            do {
                try write()
            } catch {
                throw ReadinessCheck.Failure("the store refuses a write: \(error)")
            }
        }
    }

    /// `fanout`: the fan-out workers are running, so accepted messages are sent.
    public static func fanoutRunning(_ isRunning: @escaping @Sendable () -> Bool) -> ReadinessCheck {
        ReadinessCheck("fanout") {
            guard isRunning() else { throw ReadinessCheck.Failure("the fan-out workers are not running") }
        }
    }

    /// `credentials`: every app's stored APNs key and FCM service account load (an app without one is
    /// fine: it does not use that provider). A file that no longer parses would fail every push of that app.
    ///
    /// - Parameter appIDs: the apps to check, read when the check runs (apps come and go).
    public static func credentialsLoad(
        appIDs: @escaping @Sendable () throws -> [String], apns: APNsCredentialsStore, fcm: FCMCredentialsStore
    ) -> ReadinessCheck {
        ReadinessCheck("credentials") {
            let ids: [String]
            do {
                ids = try appIDs()
            } catch {
                throw ReadinessCheck.Failure("the apps cannot be listed: \(error)")
            }
            var failures: [String] = []
            for id in ids {
                // The codes say what is wrong; the messages may name paths under the data directory.
                do throws(APNsCredentialError) {
                    _ = try apns.load(appID: id)
                } catch {
                    failures.append("app \(id): APNs \(error.code.rawValue)")
                }
                do throws(FCMCredentialError) {
                    _ = try fcm.load(appID: id)
                } catch {
                    failures.append("app \(id): FCM \(error.code.rawValue)")
                }
            }
            guard failures.isEmpty else {
                let shown = failures.prefix(5).joined(separator: "; ")
                let more = failures.count > 5 ? " and \(failures.count - 5) more" : ""
                throw ReadinessCheck.Failure("credentials do not load: \(shown)\(more)")
            }
        }
    }

    /// `forwarding`: no active destination has failed for longer than its threshold. Each unhealthy one is
    /// named with its app, how long and its last error (never its settings).
    public static func forwardingHealthy(_ unhealthy: @escaping @Sendable () throws -> [String]) -> ReadinessCheck {
        ReadinessCheck("forwarding") {
            let failing: [String]
            do {
                failing = try unhealthy()
            } catch {
                throw ReadinessCheck.Failure("the forwarders cannot be read: \(error)")
            }
            guard failing.isEmpty else {
                let shown = failing.prefix(5).joined(separator: "; ")
                let more = failing.count > 5 ? " and \(failing.count - 5) more" : ""
                throw ReadinessCheck.Failure("unhealthy destinations: \(shown)\(more)")
            }
        }
    }
}
