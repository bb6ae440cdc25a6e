import Foundation
import Testing
import Tidings

@Suite struct DeviceTokenTests {
    @Test func apnsTokenIsLowerCaseHexOfItsBytes() throws {
        let bytes: [UInt8] = (0..<32).map { UInt8($0 * 8) }
        let token = try DeviceToken.apns(bytes)
        #expect(token.type == .apns)
        #expect(token.value.count == 64)
        #expect(token.value.hasPrefix("0008101820283038"))
        #expect(token.value.hasSuffix("f8"))
        #expect(token.value == token.value.lowercased())
    }

    @Test(arguments: [0, 1, 31, 101, 200])
    func apnsTokenOfWrongLengthIsRefused(length: Int) {
        #expect(throws: RegistrationError.self) { try DeviceToken.apns(Array(repeating: 1, count: length)) }
        do {
            _ = try DeviceToken.voip(Array(repeating: 1, count: length))
            Issue.record("a \(length)-byte token was accepted")
        } catch {
            #expect(error.code == "invalid_token")
            #expect(error.message.contains("32 to 100 bytes"))
        }
    }

    @Test(arguments: [32, 64, 100])
    func apnsTokenOfAcceptedLengthRoundTrips(length: Int) throws {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let token = try DeviceToken.apns(bytes)
        #expect(try DeviceToken.parse(token.value, type: .apns) == token)
        #expect(try DeviceToken.parse(token.value.uppercased(), type: .apns) == token)
    }

    @Test(arguments: ["abc", "zz" + String(repeating: "00", count: 31), String(repeating: "0", count: 63)])
    func malformedHexIsRefused(text: String) {
        #expect(throws: RegistrationError.self) { try DeviceToken.parse(text, type: .apns) }
    }

    @Test func fcmTokenIsKeptAsWritten() throws {
        let token = try DeviceToken.fcm("fcm:APA91b-Token_Value")
        #expect(token.value == "fcm:APA91b-Token_Value")
        #expect(token.type == .fcm)
    }

    @Test(arguments: ["", "has space", "tab\there", String(repeating: "x", count: 4097)])
    func malformedFCMTokenIsRefused(text: String) {
        #expect {
            try DeviceToken.fcm(text)
        } throws: { error in
            (error as? RegistrationError)?.code == "invalid_token"
        }
    }
}
