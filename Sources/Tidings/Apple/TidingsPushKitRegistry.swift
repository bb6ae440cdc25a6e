#if canImport(UIKit) && canImport(PushKit)
    import Foundation
    import PushKit
    import TidingsModel

    /// The `PKPushRegistry` delegate for VoIP pushes: registers the VoIP token with Tidings (recording
    /// `token_register`, in the order PushKit reports tokens) and hands each incoming push to the app.
    ///
    /// ```swift
    /// voip = TidingsPushKitRegistry(client: client) { payload, done in   // on the main actor
    ///     callManager.reportIncomingCall(payload, completion: done)
    /// }
    /// ```
    ///
    /// - Important: every VoIP push must be reported to CallKit (`CXProvider.reportNewIncomingCall`) before
    ///   the `incomingCall` closure returns; iOS terminates an app that does not, and stops delivering its
    ///   VoIP pushes after repeated failures. The closure is called synchronously inside PushKit's callback
    ///   (``VoIPPushDispatch``), so report there, not from a `Task`. Tidings cannot report the call for you:
    ///   only the app knows the caller.
    public final class TidingsPushKitRegistry: NSObject, PKPushRegistryDelegate, @unchecked Sendable {
        // @unchecked: every stored property is a `let`; the registry is configured once, in init.
        public let client: TidingsClient
        public let registry: PKPushRegistry
        private let incomingCall: VoIPPushDispatch.Handler

        /// Creates the registry and asks PushKit for a VoIP token.
        ///
        /// - Parameters:
        ///   - client: the app's client.
        ///   - incomingCall: receives each VoIP push as JSON, on the main actor (PushKit calls back on the main
        ///     queue); reports it to CallKit before returning, then calls the completion once the report is done.
        public init(client: TidingsClient, incomingCall: @escaping VoIPPushDispatch.Handler) {
            self.client = client
            self.incomingCall = incomingCall
            registry = PKPushRegistry(queue: .main)
            super.init()
            registry.delegate = self
            registry.desiredPushTypes = [.voIP]
        }

        public func pushRegistry(
            _ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType
        ) {
            if type == .voIP { client.enqueueVoIPTokenUpdate(pushCredentials.token) }
        }

        public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {
            if type == .voIP { client.enqueueVoIPTokenUpdate(nil) }
        }

        public func pushRegistry(
            _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
            completion: @escaping @Sendable () -> Void
        ) {
            guard type == .voIP else { return completion() }
            let json = try? JSONValue(foundationObject: payload.dictionaryPayload)
            // The registry calls back on the main queue (init), so the handler runs there synchronously.
            MainActor.assumeIsolated { VoIPPushDispatch.dispatch(json, to: incomingCall, completion: completion) }
        }
    }
#endif
