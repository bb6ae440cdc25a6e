/// How one vendor's export maps onto installations, users, tags and attributes (docs/migrating.md has the
/// table of each).
protocol ImportProfile: Sendable {
    /// The `profile` query parameter: `native`, `onesignal`...
    var name: String { get }
    /// The formats the vendor exports this data in.
    var formats: Set<ImportFormat> { get }
    /// Whether the installation ids are the file's own (native) or derived from the vendor's device ids.
    var keepsInstallationIDs: Bool { get }
    func map(_ row: ImportSourceRow) throws(ImportRowError) -> ImportedRow
}

extension ImportProfile {
    var keepsInstallationIDs: Bool { false }
}

/// Every profile by name.
enum ImportProfiles {
    static let all: [any ImportProfile] = [
        NativeImportProfile(), OneSignalImportProfile(), MoEngageImportProfile(), BrazeImportProfile(),
        NHNCloudImportProfile(), TreasureDataImportProfile(), FCMImportProfile(),
    ]

    static func named(_ name: String) -> (any ImportProfile)? { all.first { $0.name == name } }

    static var names: [String] { all.map(\.name) }
}
