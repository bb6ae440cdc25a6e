import Foundation
import Tidings

/// Why a call to tidingsd failed, as one line a person can act on.
struct ServerClientError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Reason: Sendable, Hashable {
        /// The server answered with a non-2xx status and (usually) its `{"error": {"code", "message"}}` body.
        case refused(status: Int, code: String, message: String)
        /// No answer: connection refused, DNS, timeout.
        case unreachable(TransportError)
        /// A 2xx answer whose body is not what the API documents.
        case malformedResponse(String)
    }

    var reason: Reason
    /// The server the call went to, so the line says where.
    var server: URL
    /// What to do about it, as a sentence, when the client knows more than the server said (which setting the
    /// key came from).
    var hint: String?

    /// The HTTP status of a refusal, else nil.
    var status: Int? {
        if case .refused(let status, _, _) = reason { return status }
        return nil
    }

    /// The API's error code of a refusal (`invalid_key`, `not_found`, ...), else nil.
    var code: String? {
        if case .refused(_, let code, _) = reason { return code }
        return nil
    }

    var description: String {
        switch reason {
        case .refused(let status, let code, let message):
            let line = "\(server.absoluteString) answered \(status) \(code): \(message)"
            guard let hint else { return line }
            return line + (line.hasSuffix(".") ? " " : ". ") + hint
        case .unreachable(let error) where error.code == .timeout:
            return "\(server.absoluteString) did not answer in time (\(Self.shortReason(error.message)))"
        case .unreachable(let error):
            return
                "cannot reach tidingsd at \(server.absoluteString) (\(Self.shortReason(error.message))); start one "
                + "with 'tidingsd' or point --server / \(ServerConnection.serverVariable) at a running one"
        case .malformedResponse(let detail):
            return "\(server.absoluteString) sent an answer the CLI does not understand: \(detail)"
        }
    }

    /// The human part of a URLSession error's description (its `NSLocalizedDescription`), else the text,
    /// at most 160 characters: the whole NSError dump would drown the one line.
    static func shortReason(_ message: String) -> String {
        var reason = message
        if let start = message.range(of: "NSLocalizedDescription=") {
            let rest = message[start.upperBound...]
            let end =
                [rest.range(of: ", NS")?.lowerBound, rest.firstIndex(of: "}")].compactMap { $0 }.min()
                ?? rest.endIndex
            reason = String(rest[..<end])
        }
        return reason.count > 160 ? String(reason.prefix(159)) + "…" : reason
    }

    /// The exit status for this failure: ``ExitCode/unreachable`` when no server answered, else a failure.
    var exitCode: Int32 {
        if case .unreachable = reason { return ExitCode.unreachable }
        return ExitCode.failure
    }
}
