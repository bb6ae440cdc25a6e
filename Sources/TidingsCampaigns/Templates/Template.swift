import TidingsModel
import TidingsStore

/// A text with `{{ … }}` tags, rendered per installation: `Hi {{attributes.first_name | default: "there"}}!`.
///
/// ```swift
/// let template = try Template.parse(#"Hi {{attributes.first_name | default: "there"}}"#)
/// try template.requireRendersForEveryone()
/// template.render(installation)   // "Hi Aiko" or "Hi there"
/// ```
///
/// The rule checked when a message is accepted (``requireRendersForEveryone()``): every tag must render for every
/// installation, so a tag naming anything but `installation.id` or `installation.platform` needs a `default`.
/// Attributes and device fields can be missing or change between acceptance and send, so no audience check
/// at acceptance could promise more.
public struct Template: Sendable, Hashable {
    /// A piece of a template.
    public enum Segment: Sendable, Hashable {
        case text(String)
        case tag(TemplateTag)
    }

    public var segments: [Segment]

    /// Whether `text` has a tag to parse at all; text without `{{` is never parsed.
    public static func mayContainTags(_ text: String) -> Bool { text.contains("{{") }

    /// Parses `text`.
    /// - Throws: ``TemplateError`` with the 0-based character position of the problem.
    public static func parse(_ text: String) throws(TemplateError) -> Template {
        var parser = TemplateParser(text)
        return Template(segments: try parser.parse())
    }

    /// The tags, in order.
    public var tags: [TemplateTag] {
        segments.compactMap { if case .tag(let tag) = $0 { tag } else { nil } }
    }

    /// Refuses a template with a tag that might not render for some installation.
    /// - Throws: `missing_default` at the first such tag.
    public func requireRendersForEveryone() throws(TemplateError) {
        for tag in tags where !tag.alwaysRenders {
            guard case .variable(let variable) = tag.expression else { continue }
            throw TemplateError(
                code: .missingDefault, position: tag.position,
                message:
                    #"\#(variable.name) may be missing for some installations; give it a default, as in {{\#(variable.name) | default: "..."}}"#
            )
        }
    }

    /// How a tag's text is written into the result.
    public enum Encoding: Sendable, Hashable {
        /// As it is (titles and bodies).
        case plain
        /// Percent-encoded but for RFC 3986's unreserved characters, so a value cannot change a link's shape.
        case urlComponent
    }

    /// The template's text for `installation`.
    public func render(_ installation: Installation, encoding: Encoding = .plain) -> String {
        var result = ""
        for segment in segments {
            switch segment {
            case .text(let text): result += text
            case .tag(let tag):
                let text = tag.render(installation)
                result += encoding == .plain ? text : Self.percentEncoded(text)
            }
        }
        return result
    }

    /// `text` with every byte but `A-Z a-z 0-9 - . _ ~` as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        let hex = Array("0123456789ABCDEF")
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.append(Character(Unicode.Scalar(byte)))
            default:
                result.append("%")
                result.append(hex[Int(byte >> 4)])
                result.append(hex[Int(byte & 0xF)])
            }
        }
        return result
    }

    /// `text` with each tag replaced by `x`: what a link field is checked as at acceptance (the tags' values
    /// are percent-encoded when rendered, so they cannot make a valid link invalid). Unparsable text is returned
    /// unchanged.
    public static func sample(_ text: String) -> String {
        guard mayContainTags(text), let template = try? parse(text) else { return text }
        return template.segments.map { segment in
            switch segment {
            case .text(let text): text
            case .tag: "x"
            }
        }.joined()
    }
}
