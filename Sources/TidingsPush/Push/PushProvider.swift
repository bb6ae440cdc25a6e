/// Something that delivers pushes to devices: the APNs provider, the FCM provider, the emulator's client.
///
/// Fan-out calls it with bounded concurrency; a provider multiplexes many calls on few connections and
/// never throws for a per-push failure: the outcome says what happened.
public protocol PushProvider: Sendable {
    func send(_ push: OutgoingPush) async -> PushOutcome
}
