import Foundation
import Testing
import TidingsModel
import TidingsStore

@testable import TidingsCampaigns

@Suite struct TemplateRenderingTests {
    static func installation(
        _ attributes: [String: AttributeValue] = [:], language: String? = nil, id: String = "inst-1"
    ) -> Installation {
        Installation(
            appID: "app", installationID: id, language: language, createdAt: 0, updatedAt: 0, attributes: attributes)
    }

    func render(_ text: String, _ installation: Installation, encoding: Template.Encoding = .plain) throws -> String {
        try Template.parse(text).render(installation, encoding: encoding)
    }

    @Test func aMissingOrEmptyAttributeUsesItsDefault() throws {
        let text = #"Hi {{attributes.first_name | default: "there"}}!"#
        #expect(try render(text, Self.installation(["first_name": .string("Aiko")])) == "Hi Aiko!")
        #expect(try render(text, Self.installation()) == "Hi there!")
        #expect(try render(text, Self.installation(["first_name": .string("")])) == "Hi there!")
        #expect(try render(#"{{installation.language | default: "en"}}"#, Self.installation(language: "ja")) == "ja")
        #expect(try render(#"{{installation.language | default: "en"}}"#, Self.installation()) == "en")
        #expect(try render("{{installation.id}}/{{installation.platform}}", Self.installation()) == "inst-1/ios")
    }

    @Test func typesAreFormattedAsPeopleReadThem() throws {
        let installation = Self.installation([
            "orders": .number(3), "ratio": .number(0.25), "vip": .bool(true), "big": .number(1e20),
            "since": .date(1_798_102_800_000),
        ])
        let text =
            #"{{attributes.orders|default:""}} {{attributes.ratio|default:""}} {{attributes.vip|default:""}} {{attributes.since|default:""}}"#
        #expect(try render(text, installation) == "3 0.25 true 2026-12-24T09:00:00Z")
        #expect(try render(#"{{attributes.big | default: ""}}"#, installation) == "1e+20")
        #expect(
            try render(#"{{attributes.since | date: "%d/%m/%Y %H:%M:%S %%" | default: "-"}}"#, installation)
                == "24/12/2026 09:00:00 %")
        // A date filter passes other types unchanged.
        #expect(try render(#"{{attributes.orders | date: "%Y" | default: "-"}}"#, installation) == "3")
    }

    @Test func caseFiltersApplyInOrder() throws {
        let installation = Self.installation(["name": .string("aiko tanaka")])
        #expect(try render(#"{{attributes.name | upcase | default: ""}}"#, installation) == "AIKO TANAKA")
        #expect(try render(#"{{attributes.name | capitalize | default: ""}}"#, installation) == "Aiko tanaka")
        #expect(try render(#"{{attributes.nope | default: "friend" | upcase}}"#, installation) == "FRIEND")
        #expect(try render(#"{{attributes.nope | upcase | default: "friend"}}"#, installation) == "friend")
        #expect(try render(#"{{ "{{" }}literal}}"#, installation) == "{{literal}}")
    }

    @Test func linkValuesArePercentEncodedSoTheyCannotChangeTheLink() throws {
        let installation = Self.installation(["code": .string("a b&c=d/é")])
        let url = #"https://example.com/offer?code={{attributes.code | default: "none"}}"#
        #expect(
            try render(url, installation, encoding: .urlComponent)
                == "https://example.com/offer?code=a%20b%26c%3Dd%2F%C3%A9")
        #expect(Template.sample(url) == "https://example.com/offer?code=x")
    }

    static let templatedPayload: [UInt8] = Array(
        #"""
        {"aps":{"alert":{"body":"{{attributes.orders | default: \"no\"}} orders","title":"Hi {{attributes.first_name | default: \"there\"}}"},"mutable-content":1},"tidings":{"action":{"type":"deeplink","url":"shop://u/{{installation.id}}"},"buttons":[{"id":"b","title":"Go","type":"web","url":"https://x.test/{{attributes.first_name | default: \"\"}}"}],"data":{"raw":"{{kept}}"},"id":"msg_1","v":1}}
        """#.utf8)

    @Test func aStoredPayloadIsRenderedInItsTemplatedFieldsOnly() throws {
        let compiled = try #require(PersonalizedPayload.compile(Self.templatedPayload, limit: 4096))
        #expect(compiled.fields.count == 4)
        guard
            case .payload(let bytes) = compiled.render(
                for: Self.installation(["first_name": .string("Aiko Ü"), "orders": .number(2)], id: "i 1"))
        else {
            Issue.record("not rendered")
            return
        }
        let json = try JSONValue.parse(bytes)
        #expect(json["aps"]?["alert"]?["title"] == "Hi Aiko Ü")
        #expect(json["aps"]?["alert"]?["body"] == "2 orders")
        #expect(json["tidings"]?["action"]?["url"] == "shop://u/i%201")
        #expect(json["tidings"]?["buttons"]?.arrayValue?.first?["url"] == "https://x.test/Aiko%20%C3%9C")
        #expect(json["tidings"]?["data"]?["raw"] == "{{kept}}")
        #expect(json["tidings"]?["id"] == "msg_1")
    }

    @Test func payloadsWithoutTemplatesAreNotCompiled() throws {
        let plain = Array(#"{"aps":{"alert":{"title":"Hello"}},"tidings":{"data":{"x":"{ {"},"v":1}}"#.utf8)
        #expect(!PersonalizedPayload.mayContainTemplates(plain))
        #expect(PersonalizedPayload.compile(plain, limit: 4096) == nil)
        // `{{` only where templates are not read: nothing to render per delivery.
        let dataOnly = Array(#"{"aps":{"alert":"Hello"},"tidings":{"data":{"x":"{{y}}"},"v":1}}"#.utf8)
        #expect(PersonalizedPayload.compile(dataOnly, limit: 4096) == nil)
        let bodyOnly = Array(#"{"aps":{"alert":"Hi {{installation.id}}"},"tidings":{"v":1}}"#.utf8)
        guard
            case .payload(let bytes)? = PersonalizedPayload.compile(bodyOnly, limit: 4096)?.render(
                for: Self.installation())
        else {
            Issue.record("a plain-string alert was not rendered")
            return
        }
        #expect(try JSONValue.parse(bytes)["aps"]?["alert"] == "Hi inst-1")
    }

    @Test func aRenderOverTheLimitIsReportedWithItsSize() throws {
        let compiled = try #require(PersonalizedPayload.compile(Self.templatedPayload, limit: 500))
        let long = String(repeating: "x", count: 256)
        let result = compiled.render(for: Self.installation(["first_name": .string(long)]))
        guard case .tooLarge(let size) = result else {
            Issue.record("expected too large, got \(result)")
            return
        }
        #expect(size > 500)
        guard case .payload = compiled.render(for: Self.installation()) else {
            Issue.record("a short render should fit")
            return
        }
    }
}
