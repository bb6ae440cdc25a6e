/// Everything wrong with a journey definition, found at once so an editor can fix it in one pass.
public struct JourneyDefinitionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var problems: [JourneyProblem]

    public init(problems: [JourneyProblem]) { self.problems = problems }

    public var description: String {
        problems.map { "\($0.path): \($0.message)" }.joined(separator: "; ")
    }
}
