import TidingsModel

/// A push token as the server stores it: APNs and VoIP tokens as lower-case hex, FCM tokens as text.
///
/// ```swift
/// let token = try DeviceToken.apns(deviceTokenData)   // Data from didRegisterForRemoteNotifications
/// token.value   // "7f3a…" (lower-case hex, two digits a byte)
/// ```
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    /// The fewest bytes an APNs or VoIP token has (Apple's tokens are 32 bytes today).
    public static let minimumBytes = 32
    /// The most bytes accepted, matching the server's limit of 200 hex digits.
    public static let maximumBytes = 100
    /// The longest FCM registration token accepted, matching the server.
    public static let maximumFCMLength = 4096

    /// Which token this is.
    public var type: TokenType
    /// The wire form: lower-case hex for APNs and VoIP, the registration token itself for FCM.
    public var value: String

    private init(type: TokenType, value: String) {
        self.type = type
        self.value = value
    }

    /// An APNs device token from the bytes Apple hands the app.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` when the length is outside 32…100 bytes.
    public static func apns(_ bytes: some Sequence<UInt8>) throws(RegistrationError) -> DeviceToken {
        DeviceToken(type: .apns, value: try hex(Array(bytes), kind: "APNs"))
    }

    /// A PushKit VoIP token from the bytes PushKit hands the app.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` when the length is outside 32…100 bytes.
    public static func voip(_ bytes: some Sequence<UInt8>) throws(RegistrationError) -> DeviceToken {
        DeviceToken(type: .voip, value: try hex(Array(bytes), kind: "VoIP"))
    }

    /// An FCM registration token.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` when it is empty, longer than 4096 bytes or holds
    ///   spaces or control characters.
    public static func fcm(_ token: String) throws(RegistrationError) -> DeviceToken {
        let bytes = token.utf8
        guard !bytes.isEmpty, bytes.count <= maximumFCMLength, !bytes.contains(where: { $0 <= 0x20 }) else {
            throw .invalidToken(
                "an FCM token must be 1 to \(maximumFCMLength) bytes without spaces; this one has \(bytes.count)")
        }
        return DeviceToken(type: .fcm, value: token)
    }

    /// A token read back from hex (APNs or VoIP) or text (FCM), checked as the constructors check.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` for anything the server would refuse.
    public static func parse(_ value: String, type: TokenType) throws(RegistrationError) -> DeviceToken {
        switch type {
        case .fcm:
            return try fcm(value)
        case .apns, .voip:
            guard let bytes = bytes(fromHex: value) else {
                throw .invalidToken("a \(type.rawValue) token must be an even number of hex digits")
            }
            return type == .apns ? try apns(bytes) : try voip(bytes)
        }
    }

    public var description: String {
        // Tokens are not secrets, but a prefix is enough for logs and keeps lines short.
        "\(type.rawValue):\(value.prefix(8))…"
    }

    private static func hex(_ bytes: [UInt8], kind: String) throws(RegistrationError) -> String {
        guard (minimumBytes...maximumBytes).contains(bytes.count) else {
            throw .invalidToken(
                "a \(kind) token must be \(minimumBytes) to \(maximumBytes) bytes; this one has \(bytes.count)")
        }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func bytes(fromHex text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = utf8[index].hexDigitValue, let low = utf8[index + 1].hexDigitValue else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
