import Foundation
import Tidings
import TidingsAPNsEmulator
import TidingsModel
import TidingsServer

/// One simulated iPhone: its own container directory, APNs token and person, running the real SDK.
///
/// Like an iOS app, it is not kept running: each time pushes arrive it builds a `TidingsClient` on its
/// container, lets a ``SimulatedNotificationCenter`` deliver them (service extension, foreground
/// presentation, taps and swipes), uploads the events and lets the client go. What iOS keeps between
/// launches (registered categories) and what the person is (a seeded random generator) stay here.
///
/// The fleet calls ``handle(_:)`` for one device at a time, never twice at once.
public actor SimulatedDevice {
    public nonisolated let index: Int
    /// The APNs device token, lower-case hex.
    public nonisolated let token: String
    /// The push-to-start tokens this device reports, one per Live Activity attributes type, lower-case hex.
    public nonisolated let pushToStartTokenHexes: [String]
    private let tokenBytes: [UInt8]
    public nonisolated let userID: String
    public nonisolated let configuration: TidingsClient.Configuration
    let behaviour: DeviceBehaviour
    /// The app's backend, for user tokens; nil when the app does not verify identities.
    let userTokens: UserTokenProvider?
    private var random: SeededRandomNumberGenerator
    private var categories: [CategoryDefinition] = []
    /// Message ids already shown, to count each (message, device) once as iOS's delivery de-dup does.
    private var seenMessages: Set<String> = []
    /// The Live Activity attributes types the app offers push-to-start for, with this device's token for each.
    let pushToStartTokens: [String: [UInt8]]
    let liveActivityTokens: LiveActivityTokenDirectory
    /// Makes update tokens apart from `random`, so activities do not change what the person does.
    var liveActivityRandom: SeededRandomNumberGenerator
    /// The activities on this device by id, ended ones kept so a test can read how they ended.
    var activities: [String: SimulatedLiveActivity] = [:]
    /// Whether the last upload left events behind.
    public private(set) var hasPendingEvents = false
    public private(set) var installationID: String?
    /// What arrived and what the person did, by the campaign id of the push (a journey step's is
    /// `journey:JOURNEY_ID:STEP_ID`), so one step's funnel can be checked against what the devices did.
    public private(set) var tallyByCampaign: [String: FleetTally] = [:]
    /// The campaign ids of the alerts shown, in the order they arrived.
    public private(set) var shownCampaigns: [String] = []

    init(
        index: Int, seed: UInt64, userID: String, configuration: TidingsClient.Configuration,
        behaviour: DeviceBehaviour,
        userTokens: UserTokenProvider? = nil,
        liveActivityTypes: [String] = [],
        liveActivityTokens: LiveActivityTokenDirectory = LiveActivityTokenDirectory()
    ) {
        self.index = index
        self.userTokens = userTokens
        self.userID = userID
        self.configuration = configuration
        self.behaviour = behaviour
        // A stream of the seed per device and purpose gives every device its own, reproducible person and
        // tokens, none equal to another device's.
        var random = SeededRandomNumberGenerator(seed: seed, stream: UInt64(index) << 2)
        tokenBytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        token = tokenBytes.hexString
        self.random = random
        var liveActivityRandom = SeededRandomNumberGenerator(seed: seed, stream: UInt64(index) << 2 | 1)
        var pushToStartTokens: [String: [UInt8]] = [:]
        for type in liveActivityTypes {
            let token = (0..<32).map { _ in UInt8.random(in: 0...255, using: &liveActivityRandom) }
            pushToStartTokens[type] = token
            liveActivityTokens.assign(token.hexString, toDevice: index)
        }
        self.pushToStartTokens = pushToStartTokens
        pushToStartTokenHexes = pushToStartTokens.values.map(\.hexString).sorted()
        self.liveActivityTokens = liveActivityTokens
        self.liveActivityRandom = liveActivityRandom
    }

    /// Installs the app: permission granted, consents chosen, user logged in, token registered with
    /// tidingsd. The `token_register` event waits in the queue for the first upload.
    /// - Throws: ``DeviceFleetError/deviceFailed(index:reason:)`` when the container cannot be opened or
    ///   the server refuses the installation.
    public func register(environment: APNsEnvironment) async throws(DeviceFleetError) {
        let client = try openClient()
        let registrar = client.registrar
        await registrar.setEnvironment(environment)
        await registrar.setPermission(.authorized)
        let ads = Double.random(in: 0..<1, using: &random) < behaviour.adsConsentProbability
        await registrar.setConsents(.init(notifications: true, ads: ads, nightAds: ads))
        do {
            if let userTokens {
                // As an app does after its own sign-in: the backend's token goes with the login, and the
                // provider stays for when the server says it expired.
                await registrar.setUserTokenProvider(userTokens)
                try await registrar.login(userID: userID, userToken: try await userTokens(userID))
            } else {
                try await registrar.login(userID: userID)
            }
            switch try await client.didRegister(deviceToken: Data(tokenBytes)) {
            case .sent, .unchanged: break
            case .deferred(_, let reason), .failed(let reason):
                throw DeviceFleetError.deviceFailed(index: index, reason: "registration: \(reason)")
            }
        } catch let error as DeviceFleetError {
            throw error
        } catch {
            throw .deviceFailed(index: index, reason: "registration: \(error)")
        }
        installationID = client.installationID
        try await reportPushToStartTokens(client)
        hasPendingEvents = true
    }

    /// Delivers `notifications` as iOS would, lets the person react, then uploads the events.
    /// - Returns: what arrived and what the person did.
    public func handle(_ notifications: [APNsEmulatorNotification]) async throws(DeviceFleetError) -> FleetTally {
        let client = try openClient()
        let center = SimulatedNotificationCenter(
            client: client, extensionConfiguration: configuration, appState: .background, categories: categories)
        var tally = FleetTally()
        for notification in notifications {
            var one = FleetTally()
            let payload = try? PushPayload(json: notification.payload)
            let campaignID = payload?.campaignID
            defer {
                tally.add(one)
                if let campaignID { tallyByCampaign[campaignID, default: FleetTally()].add(one) }
            }
            one.received += 1
            if notification.pushType == "liveactivity" {
                try await applyLiveActivityPush(notification, client: client, tally: &one)
                continue
            }
            let foreground = draw() < behaviour.foregroundProbability
            await center.setAppState(foreground ? .foreground : .background)
            let shown: SimulatedNotificationCenter.Delivered?
            do {
                shown = try await center.deliver(userInfo: notification.payload, identifier: notification.apnsID)
            } catch {
                throw .deviceFailed(index: index, reason: "the service extension could not start: \(error)")
            }
            guard let shown else {
                one.background += 1
                continue
            }
            let messageKey = payload?.messageID ?? notification.apnsID
            guard seenMessages.insert(messageKey).inserted else {
                one.repeats += 1
                continue
            }
            if let campaignID { shownCampaigns.append(campaignID) }
            // iOS lets an app record a delivery only from its extension or while it is in the foreground.
            if payload?.mutableContent == true || foreground { one.delivered += 1 }
            if foreground { one.foreground += 1 }
            if shown.attachment != nil { one.mediaAttached += 1 }
            await react(to: shown, payload: payload, center: center, tally: &one)
        }
        categories = await center.categories
        let summary = await client.flush()
        hasPendingEvents = (summary.remaining ?? 0) > 0 || summary.error != nil
        return tally
    }

    /// The app tracks one of its own events (`add_to_cart`, `purchase`) for the person logged in and uploads it
    /// at once, as an app does when the person acts.
    /// - Throws: ``DeviceFleetError/deviceFailed(index:reason:)`` when the SDK refuses the event or the upload
    ///   fails.
    public func track(_ name: String, value: String? = nil) async throws(DeviceFleetError) {
        let client = try openClient()
        do {
            try client.track(name, value: value)
        } catch {
            throw .deviceFailed(index: index, reason: "tracking \(name): \(error.message)")
        }
        let summary = await client.flush()
        hasPendingEvents = (summary.remaining ?? 0) > 0 || summary.error != nil
        if let error = summary.error {
            throw .deviceFailed(index: index, reason: "uploading \(name): \(error)")
        }
    }

    /// Uploads what earlier runs left queued (the first `token_register`, or a failed upload).
    @discardableResult
    public func flush() async throws(DeviceFleetError) -> UploadSummary {
        let summary = await (try openClient()).flush()
        hasPendingEvents = (summary.remaining ?? 0) > 0 || summary.error != nil
        return summary
    }

    /// The person taps the body or a button, swipes the notification away, or leaves it.
    private func react(
        to shown: SimulatedNotificationCenter.Delivered, payload: PushPayload?, center: SimulatedNotificationCenter,
        tally: inout FleetTally
    ) async {
        if draw() < behaviour.openProbability {
            let buttons = payload?.buttons ?? []
            if !buttons.isEmpty, draw() < behaviour.buttonProbability {
                let button = buttons[Int.random(in: 0..<buttons.count, using: &random)]
                var replyText: String?
                if case .reply = button.action { replyText = "On my way" }
                _ = await center.tap(shown.identifier, action: button.id, text: replyText)
                tally.actions += 1
                switch button.action {
                case .openApp, .deepLink, .web:
                    tally.buttonOpens += 1
                    maybePurchase(after: payload, tally: &tally)
                case .reply, .dismiss, .custom: break
                }
                switch button.action {
                case .deepLink(let url) where configuration.deepLinks.allows(url): tally.deeplinkOpens += 1
                case .web: tally.linkOpens += 1
                default: break
                }
            } else {
                _ = await center.tap(shown.identifier)
                tally.opened += 1
                maybePurchase(after: payload, tally: &tally)
                switch payload?.defaultAction {
                case .deepLink(let url)? where configuration.deepLinks.allows(url): tally.deeplinkOpens += 1
                case .web?: tally.linkOpens += 1
                default: break
                }
            }
        } else if draw() < behaviour.dismissProbability {
            if await center.dismiss(shown.identifier) != nil { tally.dismissed += 1 }
        }
    }

    /// Some people the notification brought into the app buy, and the app tracks it with the message's id.
    private func maybePurchase(after payload: PushPayload?, tally: inout FleetTally) {
        guard draw() < behaviour.purchaseProbability, let client = try? openClient(),
            (try? client.track("purchase", value: "order-\(index)", messageID: payload?.messageID)) != nil
        else { return }
        tally.purchases += 1
    }

    private func draw() -> Double {
        Double.random(in: 0..<1, using: &random)
    }

    func openClient() throws(DeviceFleetError) -> TidingsClient {
        do {
            return try TidingsClient(configuration: configuration)
        } catch {
            throw .deviceFailed(index: index, reason: "cannot open its container: \(error)")
        }
    }
}
