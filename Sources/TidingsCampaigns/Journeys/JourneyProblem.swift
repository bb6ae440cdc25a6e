/// One thing wrong with a journey definition: where (`steps[2].wait.timeout`) and what.
public struct JourneyProblem: Sendable, Hashable, Error {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}
