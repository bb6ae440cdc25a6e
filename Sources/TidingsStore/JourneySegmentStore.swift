/// Membership of the segment a segment-triggered journey names, kept per (journey, segment, person) in rows so
/// that a join is a transition from not-member to member, heard once whichever instance or look sees it.
///
/// Nothing is recorded until a sweep has taken the segment's members as they were when the journey started
/// (its baseline): before that, nobody can be told to have joined.
public protocol JourneySegmentStore: Sendable {
    /// The subjects recorded as members of `segment` for the journey; nil until its baseline is taken.
    func journeySegmentMembers(journeyID: String, segment: String) throws -> Set<String>?
    /// Records, in one transaction, the people who left (`left`, subjects) and those found members (`joined`):
    /// each join that is a transition counts one more join of the person and, when it `enters`, enters its run
    /// under the entry key `segment:SUBJECT:N` (the N-th join), so two looks that see the same join enter once.
    /// Changes nothing before the baseline is complete unless `takingBaseline`.
    /// - Returns: the outcome of each transition's entry, in the order of `joined`; nil where the person was
    ///   already recorded as a member, or the join only records them.
    func recordJourneySegmentMembership(
        journeyID: String, segment: String, joined: [JourneySegmentJoin], left: [String], takingBaseline: Bool,
        now: Int64
    ) throws -> [JourneyEntryOutcome?]
    /// Marks the baseline taken: from now on a join recorded outside it is a transition that enters.
    func completeJourneySegmentBaseline(journeyID: String, segment: String, now: Int64) throws
}
