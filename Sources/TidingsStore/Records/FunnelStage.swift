import TidingsModel

/// A stage of a message's or campaign's funnel, counted in distinct installations.
///
/// Each stage is a subset of the one it is measured against, so no rate can pass 100%:
///
/// | stage | an installation is in it when it has, for the message or campaign | subset of |
/// |---|---|---|
/// | `delivered` | a `delivery` or any interaction (an open proves the push arrived, even with no extension) | — |
/// | `opened` | an `open`, an `action` of a button that opens the app, a `link_open`, `deeplink_open` or `screen_open` | delivered |
/// | `clicked` | a `link_open` or `deeplink_open` (body or button) | opened |
/// | `actions` | an `action` or a `reply` (a button, whether or not it opened the app) | delivered |
/// | `dismissed` | a `dismiss` | delivered |
///
/// `actions` is not inside `opened`: a dismiss, reply or custom button acts without opening the app.
public enum FunnelStage: String, Sendable, Hashable, CaseIterable {
    case delivered
    case opened
    case clicked
    case actions
    case dismissed

    /// Event types that show a person handled the notification, and therefore that it was delivered.
    static let interactions: [EventType] = [
        .open, .dismiss, .action, .reply, .linkOpen, .deeplinkOpen, .screenOpen, .couponCopy,
    ]

    /// The SQL columns that count each stage (in `allCases` order), then the number of `action` events that
    /// opened the app, over events aliased `e`, and the values to bind to their parameters.
    ///
    /// - Parameters:
    ///   - openingActions: the ids of the buttons that open the app, by message id.
    ///   - parameter: the placeholder of the n-th parameter (`?n` for SQLite, `$n` for PostgreSQL).
    ///   - first: the number of the first parameter these columns may use.
    package static func columns(
        openingActions: [String: Set<String>], parameter: (Int) -> String, first: Int
    ) -> (sql: String, values: [String]) {
        var values: [String] = []
        func bind(_ value: String) -> String {
            values.append(value)
            return parameter(first + values.count - 1)
        }
        let opening = openingAction(openingActions: openingActions, bind: bind)
        func types(_ types: [EventType]) -> String {
            "e.type IN (\(types.map { "'\($0.rawValue)'" }.joined(separator: ", ")))"
        }
        let conditions: [FunnelStage: String] = [
            .delivered: types([.delivery] + interactions),
            .opened: "(\(types([.open, .linkOpen, .deeplinkOpen, .screenOpen])) OR \(opening))",
            .clicked: types([.linkOpen, .deeplinkOpen]),
            .actions: types([.action, .reply]),
            .dismissed: types([.dismiss]),
        ]
        let stages = allCases.map { "COUNT(DISTINCT CASE WHEN \(conditions[$0]!) THEN e.installation_id END)" }
        return ((stages + ["COUNT(CASE WHEN \(opening) THEN 1 END)"]).joined(separator: ", "), values)
    }

    /// The SQL condition that an event aliased `e` is an `action` that opened the app: as the SDK says
    /// (`opens_app`), or, from an SDK that does not say, as the message's own buttons say (`openingActions`,
    /// by message id). `bind` binds a text value and returns its placeholder.
    package static func openingAction(openingActions: [String: Set<String>], bind: (String) -> String) -> String {
        let byMessage = openingActions.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map { message, ids in
            let message = bind(message)
            let actions = ids.sorted().map(bind).joined(separator: ", ")
            return "(e.message_id = \(message) AND e.action_id IN (\(actions)))"
        }
        let inferred = byMessage.isEmpty ? "" : " OR (e.opens_app IS NULL AND (\(byMessage.joined(separator: " OR "))))"
        return "(e.type = 'action' AND (e.opens_app = 1\(inferred)))"
    }
}
