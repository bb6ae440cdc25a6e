import TidingsModel
import TidingsStore

/// What a template tag can name: a custom attribute (`attributes.first_name`), an attribute of the user's
/// profile (`user.first_name`) or an installation field (`installation.language`).
public enum TemplateVariable: Sendable, Hashable {
    /// The installation fields a template may read, by the name it uses.
    public enum InstallationField: String, Sendable, Hashable, CaseIterable {
        case id
        case platform
        case userID = "user_id"
        case language
        case locale
        case country
        case timezone
        case appVersion = "app_version"
        case appBuild = "app_build"
        case osName = "os_name"
        case osVersion = "os_version"
        case deviceModel = "device_model"
    }

    case attribute(String)
    case userAttribute(String)
    case installation(InstallationField)

    /// Whether every installation has a value: only `installation.id` and `installation.platform`. Anything
    /// else may be missing for some installation, so a tag naming it needs a `default`.
    public var isAlwaysPresent: Bool {
        self == .installation(.id) || self == .installation(.platform)
    }

    /// The name as a template writes it.
    public var name: String {
        switch self {
        case .attribute(let key): "attributes.\(key)"
        case .userAttribute(let key): "user.\(key)"
        case .installation(let field): "installation.\(field.rawValue)"
        }
    }

    /// The variable's value for `installation`; nil when it has none.
    public func value(in installation: Installation) -> AttributeValue? {
        switch self {
        case .attribute(let key): return installation.attributes[key]
        case .userAttribute(let key): return installation.userAttributes[key]
        case .installation(let field):
            let text: String? =
                switch field {
                case .id: installation.installationID
                case .platform: installation.platform
                case .userID: installation.userID
                case .language: installation.language
                case .locale: installation.locale
                case .country: installation.country
                case .timezone: installation.timezone
                case .appVersion: installation.appVersion
                case .appBuild: installation.appBuild
                case .osName: installation.osName
                case .osVersion: installation.osVersion
                case .deviceModel: installation.deviceModel
                }
            return text.map(AttributeValue.string)
        }
    }

    /// The variable a dotted path names.
    /// - Throws: `unknown_variable` at `position`, listing what exists.
    static func resolve(_ path: [String], position: Int) throws(TemplateError) -> TemplateVariable {
        if path.count == 2 && (path[0] == "attributes" || path[0] == "user") {
            guard AttributeLimits().isValidKey(path[1]) else {
                throw TemplateError(
                    code: .unknownVariable, position: position,
                    message: "'\(path[1])' cannot be an attribute key (A-Z a-z 0-9 _, starting with a letter)")
            }
            return path[0] == "user" ? .userAttribute(path[1]) : .attribute(path[1])
        }
        if path.count == 2 && path[0] == "installation" {
            guard let field = InstallationField(rawValue: path[1]) else {
                throw TemplateError(
                    code: .unknownVariable, position: position,
                    message:
                        "installation has no field '\(path[1])'; it has \(InstallationField.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            return .installation(field)
        }
        throw TemplateError(
            code: .unknownVariable, position: position,
            message:
                "unknown variable '\(path.joined(separator: "."))'; use attributes.NAME, user.NAME or installation.FIELD"
        )
    }
}
