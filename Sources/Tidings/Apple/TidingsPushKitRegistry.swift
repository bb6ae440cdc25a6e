#if canImport(UIKit) && canImport(PushKit)
    import Foundation
    import PushKit
    import TidingsModel

    /// The `PKPushRegistry` delegate for VoIP pushes: registers the VoIP token with Tidings and hands each
    /// incoming call push to the app.
    ///
    /// ```swift
    /// voip = TidingsPushKitRegistry(client: client) { payload, done in
    ///     provider.reportNewIncomingCall(with: UUID(), update: update(payload)) { _ in done() }
    /// }
    /// ```
    ///
    /// - Important: Since iOS 13, every VoIP push must be reported to CallKit
    ///   (`CXProvider.reportNewIncomingCall`) before the `incomingCall` closure returns or calls its
    ///   completion; an app that does not is terminated, and iOS stops delivering its VoIP pushes after
    ///   repeated failures. Tidings cannot report the call for you: only the app knows the caller.
    public final class TidingsPushKitRegistry: NSObject, PKPushRegistryDelegate, @unchecked Sendable {
        // @unchecked: every stored property is a `let`; the registry is configured once, in init.
        public let client: TidingsClient
        public let registry: PKPushRegistry
        private let incomingCall: @Sendable (JSONValue, @escaping @Sendable () -> Void) -> Void

        /// Creates the registry and asks PushKit for a VoIP token.
        ///
        /// - Parameters:
        ///   - client: the app's client.
        ///   - queue: where PushKit calls back; the main queue when nil.
        ///   - incomingCall: receives each VoIP push as JSON and a completion to call once the call was
        ///     reported to CallKit.
        public init(
            client: TidingsClient, queue: DispatchQueue? = nil,
            incomingCall: @escaping @Sendable (JSONValue, @escaping @Sendable () -> Void) -> Void
        ) {
            self.client = client
            self.incomingCall = incomingCall
            registry = PKPushRegistry(queue: queue)
            super.init()
            registry.delegate = self
            registry.desiredPushTypes = [.voIP]
        }

        public func pushRegistry(
            _ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType
        ) {
            guard type == .voIP else { return }
            let token = Array(pushCredentials.token)
            let client = client
            Task {
                do {
                    try await client.registrar.setVoIPToken(token)
                    await client.syncRegistration()
                } catch {
                    client.logger.warning("refused the VoIP token", metadata: ["error": "\(error)"])
                }
            }
        }

        public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {
            guard type == .voIP else { return }
            let client = client
            Task {
                do {
                    _ = try await client.registrar.unregister(.voip)
                } catch {
                    client.logger.info("cannot unregister the VoIP token", metadata: ["error": "\(error)"])
                }
            }
        }

        public func pushRegistry(
            _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
            completion: @escaping @Sendable () -> Void
        ) {
            guard type == .voIP else { return completion() }
            let json: JSONValue
            do {
                json = try JSONValue(foundationObject: payload.dictionaryPayload)
            } catch {
                // Still the app's: it must report a call for every VoIP push, even an unreadable one.
                client.logger.warning("unreadable VoIP payload", metadata: ["error": "\(error)"])
                json = .object([:])
            }
            incomingCall(json, completion)
        }
    }
#endif
