/// `tidings payload inspect|lint`.
enum PayloadCommand {
    static func run(_ arguments: [String]) async throws -> Int32 {
        throw CommandLineError.usage("payload: not built yet")
    }
}
