/// What one ``APNsClient`` holds open to one APNs host at a moment: how many connections, how many pushes they
/// carry, and how many streams their host grants them in all.
///
/// Pushes in flight above ``streams`` wait in a connection's queue: with ``connections`` at the configured
/// maximum, that is the sign that more connections (`--apns-connections`) would send faster.
public struct APNsConnectionLoad: Sendable, Hashable {
    /// Connections open now.
    public var connections: Int
    /// Pushes handed to the connections and not answered yet, those waiting in a connection's queue included.
    public var pushesInFlight: Int
    /// Streams the open connections may use at once: each one's window as its host grants it, at most the
    /// configured streams per connection.
    public var streams: Int

    public init(connections: Int = 0, pushesInFlight: Int = 0, streams: Int = 0) {
        self.connections = connections
        self.pushesInFlight = pushesInFlight
        self.streams = streams
    }
}
