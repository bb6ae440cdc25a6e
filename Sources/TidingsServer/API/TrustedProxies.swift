import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The proxies whose forwarding headers `tidingsd` believes (`--trusted-proxy CIDR`), and the client address
/// a request comes from.
///
/// A request's client is its TCP peer unless that peer is a trusted proxy; then the forwarding header is read
/// right to left, each trusted hop passing on to the address it names, and the first address that is not a
/// trusted proxy is the client. Entries left of it were written by the client (or by proxies it chose) and are
/// never read, so an untrusted peer cannot name another address, and a client behind a trusted proxy cannot
/// either.
///
/// ```swift
/// let proxies = try TrustedProxies(["10.0.0.0/8", "fd00::/8"])
/// proxies.clientAddress(peer: "10.1.2.3", headers: ["X-Forwarded-For": "198.51.100.7"])  // "198.51.100.7"
/// ```
public struct TrustedProxies: Sendable, Hashable {
    /// Which header the proxies write; the other is ignored, since a proxy passes on what the client sent in it.
    public enum Header: String, Sendable, Hashable, CaseIterable {
        /// `X-Forwarded-For: client, proxy1, proxy2` (nginx, HAProxy, Caddy, most cloud load balancers).
        case xForwardedFor = "x-forwarded-for"
        /// RFC 7239: `Forwarded: for=client;proto=https, for="[2001:db8::1]:443"`.
        case forwarded = "forwarded"

        var name: String { self == .xForwardedFor ? "X-Forwarded-For" : "Forwarded" }
    }

    /// The trusted networks; empty trusts no one, so the TCP peer is always the client.
    public private(set) var networks: [IPNetwork]
    /// The header read from a trusted peer.
    public var header: Header

    public init(_ networks: [IPNetwork] = [], header: Header = .xForwardedFor) {
        self.networks = networks
        self.header = header
    }

    /// Parses each `CIDR` (`10.0.0.0/8`, `2001:db8::/32`, or one address).
    /// - Throws: ``IPNetwork/ParseError`` naming the first that is not one.
    public init(_ cidrs: [String], header: Header = .xForwardedFor) throws {
        self.init(try cidrs.map(IPNetwork.init(parsing:)), header: header)
    }

    public mutating func add(_ network: IPNetwork) {
        if !networks.contains(network) { networks.append(network) }
    }

    /// Whether `address` is one of the trusted proxies.
    public func trusts(_ address: IPAddress) -> Bool {
        networks.contains { $0.contains(address) }
    }

    /// The client of a request from `peer` with `headers`: `peer` itself unless it is trusted, else the
    /// rightmost address in the forwarding header not of a trusted proxy. When a trusted hop's entry is missing,
    /// malformed or obfuscated (`unknown`, `_hidden`), the last trusted hop is the client: no address is taken
    /// from a value that cannot be read.
    public func clientAddress(peer: String?, headers: some Sequence<(name: String, value: String)>) -> String? {
        guard !networks.isEmpty, let peer, var current = IPAddress(peer) else { return peer }
        guard trusts(current) else { return peer }
        let entries = Self.entries(of: header, in: headers)
        for entry in entries.reversed() {
            guard let address = entry.flatMap(IPAddress.init(hostWithPort:)) else { break }
            current = address
            if !trusts(address) { break }
        }
        return current.description
    }

    /// The hop entries of every `header` field in order: nil for one that names no readable address.
    static func entries(
        of header: Header, in headers: some Sequence<(name: String, value: String)>
    ) -> [String?] {
        var entries: [String?] = []
        for field in headers where field.name.caseInsensitiveCompare(header.name) == .orderedSame {
            for element in splitOutsideQuotes(field.value, on: ",") {
                let trimmed = element.trimmingCharacters(in: .whitespaces)
                switch header {
                case .xForwardedFor:
                    entries.append(trimmed.isEmpty ? nil : trimmed)
                case .forwarded:
                    entries.append(forwardedFor(trimmed))
                }
            }
        }
        return entries
    }

    /// The `for=` value of one RFC 7239 element (`for=192.0.2.1;proto=https`), unquoted; nil without one.
    static func forwardedFor(_ element: String) -> String? {
        for pair in splitOutsideQuotes(element, on: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].lowercased() == "for" else { continue }
            var value = parts[1]
            if value.hasPrefix("\"") {
                guard value.count >= 2, value.hasSuffix("\"") else { return nil }
                value = String(value.dropFirst().dropLast())
            }
            return value
        }
        return nil
    }

    /// `text` split on `separator` where it is not inside a quoted string (RFC 7230 quoted-string).
    static func splitOutsideQuotes(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator && !quoted {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }
}

/// An IPv4 or IPv6 address as 16 bytes; IPv4 is kept IPv4-mapped (`::ffff:a.b.c.d`), so that a dual-stack
/// socket's peer matches an IPv4 network.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// An address in text (`192.0.2.1`, `2001:db8::1`, `::ffff:192.0.2.1`); nil for anything else.
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= 64, !text.contains("%") else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = [UInt8](repeating: 0, count: 10) + [0xff, 0xff] + withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
    }

    /// An address as forwarding headers write it: bare, `a.b.c.d:port`, `[v6]` or `[v6]:port`.
    init?(hostWithPort text: String) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && Self.isPort(rest.dropFirst())) else { return nil }
            self.init(String(text[text.index(after: text.startIndex)..<close]))
            return
        }
        if let address = IPAddress(text) {
            self = address
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, Self.isPort(parts[1]), let address = IPAddress(String(parts[0])), address.isIPv4
        else { return nil }
        self = address
    }

    private static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 5 && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber)
    }

    public var isIPv4: Bool { bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] }

    /// The canonical text: dotted for IPv4 (mapped or not), RFC 5952 for IPv6.
    public var description: String {
        if isIPv4 { return bytes.suffix(4).map(String.init).joined(separator: ".") }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`); a bare address is a network of one.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's first address (host bits cleared).
    public let address: IPAddress
    /// Leading bits that must match, of 128 (an IPv4 `/n` is `96 + n`).
    public let prefixLength: Int

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var text: String
        public var description: String { "\"\(text)\" is not an IPv4 or IPv6 address or CIDR network" }
    }

    public init(parsing text: String) throws(ParseError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { throw ParseError(text: text) }
        let width = address.isIPv4 ? 32 : 128
        var length = width
        if parts.count == 2 {
            guard let given = Int(parts[1]), parts[1].allSatisfy(\.isNumber), (0...width).contains(given) else {
                throw ParseError(text: text)
            }
            length = given
        }
        prefixLength = length + (address.isIPv4 ? 96 : 0)
        self.address = IPAddress(masking: address, to: prefixLength)
    }

    public func contains(_ other: IPAddress) -> Bool {
        IPAddress(masking: other, to: prefixLength) == address
    }

    public var description: String {
        "\(address)/\(address.isIPv4 ? prefixLength - 96 : prefixLength)"
    }
}

extension IPAddress {
    /// `address` with every bit past the first `prefixLength` cleared.
    fileprivate init(masking address: IPAddress, to prefixLength: Int) {
        var bytes = address.bytes
        for index in 0..<16 {
            let kept = min(8, max(0, prefixLength - index * 8))
            bytes[index] &= kept == 0 ? 0 : UInt8(truncatingIfNeeded: 0xff << (8 - kept))
        }
        self.init(bytes: bytes)
    }

    fileprivate init(bytes: [UInt8]) {
        self.bytes = bytes
    }
}
