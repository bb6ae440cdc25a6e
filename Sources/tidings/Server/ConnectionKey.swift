/// Which key a command presents, and where it is looked up: the server key reads and sends for one app, the
/// admin key manages apps and keys. They are separate settings so that a machine that only sends never needs
/// to hold the key that can mint keys.
enum ConnectionKey: Sendable, Hashable {
    /// `tdg_srv_…`: `--key`, `TIDINGS_SERVER_KEY`, config member `key`.
    case server
    /// `tdg_adm_…`: `--admin-key`, `TIDINGS_ADMIN_KEY`, config member `admin_key`.
    case admin

    /// The command-line option, without `--`.
    var option: String {
        switch self {
        case .server: "key"
        case .admin: "admin-key"
        }
    }

    var environmentVariable: String {
        switch self {
        case .server: "TIDINGS_SERVER_KEY"
        case .admin: "TIDINGS_ADMIN_KEY"
        }
    }

    /// The member of the config file that holds it.
    var configMember: String {
        switch self {
        case .server: "key"
        case .admin: "admin_key"
        }
    }

    /// The usage error when it is set nowhere: every place to set it, and how to make one.
    var missingMessage: String {
        switch self {
        case .server:
            "no server key: pass --key KEY, set \(environmentVariable), or add \"key\" to the config file "
                + "(make one with 'tidings keys create --app APP --kind server' or "
                + "'tidingsd keys create --app APP --kind server')"
        case .admin:
            "no admin key: pass --admin-key KEY, set \(environmentVariable), or add \"admin_key\" to the config "
                + "file (make one where tidingsd keeps its data with 'tidingsd keys create --kind admin')"
        }
    }
}
