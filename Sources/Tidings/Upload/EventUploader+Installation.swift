import Foundation

extension EventUploader {
    /// The installation a batch comes from and the secret that proves it: `X-Tidings-Installation` and
    /// `X-Tidings-Installation-Secret` on `POST /v1/events`. An app key may only upload its own installation's
    /// events (docs/events.md, "Events are tied to their device").
    public struct Installation: Sendable, Hashable {
        /// The id the events were recorded under.
        public var installationID: String
        /// The secret the server issued to that installation when it registered.
        public var secret: InstallationSecret

        public init(installationID: String, secret: InstallationSecret) {
            self.installationID = installationID
            self.secret = secret
        }
    }

    /// Where the uploader reads its ``Installation`` before each batch. While it answers nil (the installation
    /// has not registered, so it holds no secret) the uploader sends nothing and keeps every event.
    ///
    /// ```swift
    /// let source = EventUploader.InstallationSource.stored(identity: { registrar.identity }, secrets: store)
    /// ```
    public struct InstallationSource: Sendable {
        private let read: @Sendable () -> Installation?

        /// A source that answers `read()` each time.
        public init(_ read: @escaping @Sendable () -> Installation?) {
            self.read = read
        }

        /// The installation as it is now, or nil while it has no secret.
        public func current() -> Installation? { read() }

        /// The id `identity` answers and the secret `secrets` keeps for it: what the app and its extension share
        /// (the registrar's secret store). A store that cannot be read holds the events, as no secret does.
        public static func stored(
            identity: @escaping @Sendable () -> InstallationIdentity, secrets: any SecretStore
        ) -> InstallationSource {
            InstallationSource {
                let installationID = identity().installationID
                guard let secret = try? secrets.secret(for: installationID) else { return nil }
                return Installation(installationID: installationID, secret: secret)
            }
        }

        /// Always `installation`: for tests and tools that know the installation up front.
        public static func fixed(_ installation: Installation?) -> InstallationSource {
            InstallationSource { installation }
        }
    }
}
