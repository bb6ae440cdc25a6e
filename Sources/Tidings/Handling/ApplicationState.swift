/// `UIApplication.State` as a plain value, converted once by the Apple glue.
public enum ApplicationState: Sendable, Hashable {
    /// On screen and receiving events.
    case active
    /// On screen but not receiving events: launching, coming forward from a tap, or behind a system sheet.
    case inactive
    /// Not on screen.
    case background
}
