import TidingsModel

/// What a simulated fleet received and what its people did, counted by the devices themselves (not from
/// the SDK's events), so a funnel computed by the server can be checked against it.
public struct FleetTally: Sendable, Hashable {
    /// Pushes handed to devices by the emulator, resends included.
    public var received = 0
    /// Distinct (message, device) alerts shown: what `delivered` must count.
    public var delivered = 0
    /// Background (silent) pushes that woke the app and showed nothing.
    public var background = 0
    /// Pushes that arrived again for a (message, device) already seen.
    public var repeats = 0
    /// Alerts that arrived while the app was in the foreground.
    public var foreground = 0
    /// Alerts shown with their media attached by the service extension.
    public var mediaAttached = 0
    /// Taps on a notification's body.
    public var opened = 0
    /// Taps on one of its buttons.
    public var actions = 0
    /// Taps on a button that opens the app (open app, deep link, web page): opens too, to the server's funnel.
    public var buttonOpens = 0
    /// Swipes away that the app hears of (categories registered with the custom-dismiss option).
    public var dismissed = 0
    /// Links opened in the app by a tap.
    public var deeplinkOpens = 0
    /// Web pages opened by a tap.
    public var linkOpens = 0
    /// Live Activities started by push-to-start pushes.
    public var liveActivityStarts = 0
    /// Live Activity updates applied.
    public var liveActivityUpdates = 0
    /// Live Activities ended by an end push.
    public var liveActivityEnds = 0
    /// Live Activity pushes dropped for a `timestamp` older than the state shown.
    public var liveActivityOutdated = 0
    /// Push-to-start pushes for an activity already running on the device.
    public var liveActivityRepeats = 0
    /// Live Activity pushes no activity or push-to-start token of the device could take.
    public var liveActivityRefused = 0
    /// `purchase` events the apps tracked after a notification opened them.
    public var purchases = 0

    public init() {}

    /// Adds `other`'s counts to these.
    public mutating func add(_ other: FleetTally) {
        received += other.received
        delivered += other.delivered
        background += other.background
        repeats += other.repeats
        foreground += other.foreground
        mediaAttached += other.mediaAttached
        opened += other.opened
        actions += other.actions
        buttonOpens += other.buttonOpens
        dismissed += other.dismissed
        deeplinkOpens += other.deeplinkOpens
        linkOpens += other.linkOpens
        liveActivityStarts += other.liveActivityStarts
        liveActivityUpdates += other.liveActivityUpdates
        liveActivityEnds += other.liveActivityEnds
        liveActivityOutdated += other.liveActivityOutdated
        liveActivityRepeats += other.liveActivityRepeats
        liveActivityRefused += other.liveActivityRefused
        purchases += other.purchases
    }

    /// The events these actions must produce on the server, by funnel stage name: an open through a button
    /// counts as an open and as an action (docs/campaigns.md, "Funnels").
    public var expectedFunnel: [String: Int] {
        [
            "delivered": delivered, "opened": opened + buttonOpens, "dismissed": dismissed, "actions": actions,
            "deeplink_open": deeplinkOpens, "link_open": linkOpens,
        ]
    }

    /// Every count, by snake-case name.
    public var json: JSONValue {
        let counts: [String: Int] = [
            "received": received, "delivered": delivered, "background": background, "repeats": repeats,
            "foreground": foreground, "media_attached": mediaAttached, "opened": opened, "actions": actions,
            "button_opens": buttonOpens, "dismissed": dismissed, "deeplink_open": deeplinkOpens, "link_open": linkOpens,
            "live_activity_starts": liveActivityStarts, "live_activity_updates": liveActivityUpdates,
            "live_activity_ends": liveActivityEnds, "live_activity_outdated": liveActivityOutdated,
            "live_activity_repeats": liveActivityRepeats, "live_activity_refused": liveActivityRefused,
            "purchases": purchases,
        ]
        return .object(counts.mapValues { .integer(Int64($0)) })
    }
}
