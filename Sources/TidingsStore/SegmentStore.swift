/// Saved segments: named audience expressions (`segment:NAME` in an audience). ``Store`` refines this protocol.
public protocol SegmentStore: Sendable {
    /// The app's segments, by name.
    func segments(appID: String) throws -> [Segment]
    func segment(appID: String, segmentID: String) throws -> Segment?
    /// Inserts the segment, or replaces the one with its id.
    /// - Throws: ``StoreError/Code/conflict`` when another segment of the app has its name.
    func saveSegment(appID: String, _ segment: Segment) throws
    /// - Returns: Whether there was such a segment.
    func deleteSegment(appID: String, segmentID: String) throws -> Bool
}
