/// `tidings queue stats|dump|flush`.
enum QueueCommand {
    static func run(_ arguments: [String]) async throws -> Int32 {
        throw CommandLineError.usage("queue: not built yet")
    }
}
