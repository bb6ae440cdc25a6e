/// What a message's deliveries and funnel can be broken down by.
public enum DeliveryGrouping: String, Sendable, Hashable, CaseIterable {
    /// The variant each installation was assigned (`control` included).
    case variant
    /// The content language each installation was given.
    case language
}
