import Foundation
import TidingsCampaigns
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Turns one source row into an ``ImportRow`` with the checks of the installation and tag routes
/// (``InstallationJSON``, ``TagLimits``), naming the file's column and the rule of the first value refused.
struct ImportRowMapper: Sendable {
    let profile: any ImportProfile
    let attributeLimits: AttributeLimits
    let tagLimits: TagLimits

    func row(
        _ source: ImportSourceRow, number: Int, digest: (String) throws -> [UInt8]?
    ) throws -> ImportRow {
        let imported = try profile.map(source)
        var items: [ImportRow.Item] = []
        var seen = Set<String>()
        for device in imported.devices {
            let installationID = try installationID(of: device)
            guard seen.insert(installationID).inserted else { continue }
            let update: InstallationUpdate
            do {
                update = try InstallationJSON.update(from: device.body, attributeLimits: attributeLimits)
            } catch {
                throw culprit(in: device, imported: imported)
            }
            items.append(ImportRow.Item(installationID: installationID, update: update))
        }
        var tags = Set<String>()
        for value in imported.tags {
            guard let tag = value.stringValue, tagLimits.isValid(tag) else {
                throw ImportRowError(
                    column: imported.tagsColumn, rule: "invalid_tag",
                    message:
                        "tag '\(value.stringValue?.prefix(80) ?? "\(value)")' must be 1 to \(tagLimits.maximumLength) characters of A-Z a-z 0-9 _ . : -"
                )
            }
            tags.insert(tag)
        }
        if tags.count > tagLimits.maximumPerUser {
            throw ImportRowError(
                column: imported.tagsColumn, rule: "too_many_tags",
                message: "a user may have at most \(tagLimits.maximumPerUser) tags; the row has \(tags.count)")
        }
        if !tags.isEmpty, imported.userID == nil {
            throw ImportRowError(
                column: imported.userColumn, rule: "required",
                message:
                    "tags belong to a user: \(imported.userColumn) is required when \(imported.tagsColumn) is given")
        }
        return ImportRow(
            number: number, items: items, userID: imported.userID, userDigest: try imported.userID.flatMap(digest),
            tags: tags, userColumn: imported.userColumn, tagsColumn: imported.tagsColumn,
            attributesColumn: imported.attributesColumn)
    }

    /// The installation's id: the file's own for the native profile; otherwise `PROFILE.SOURCE_ID`, or, when
    /// that is no identifier, `PROFILE.h.` and 32 hex digits of the source id's SHA-256. The same device
    /// always gets the same id, so a re-run updates what the first run made.
    private func installationID(of device: ImportedDevice) throws(ImportRowError) -> String {
        if profile.keepsInstallationIDs {
            guard APIService.isIdentifier(device.sourceID) else {
                throw ImportRowError(
                    column: device.sourceColumn, rule: "invalid_installation_id",
                    message: "\(device.sourceColumn) \(ResourceIdentifier.rule)")
            }
            return device.sourceID
        }
        let plain = "\(profile.name).\(device.sourceID)"
        if APIService.isIdentifier(plain) { return plain }
        let digest = SHA256Digest.hash(Array(device.sourceID.utf8)).prefix(16)
        return "\(profile.name).h." + digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The first field of `device` the installation route refuses, checked alone, as the column it came from.
    private func culprit(in device: ImportedDevice, imported: ImportedRow) -> ImportRowError {
        func refusal(_ body: [String: JSONValue]) -> HTTPError? {
            do {
                _ = try InstallationJSON.update(from: body, attributeLimits: attributeLimits)
                return nil
            } catch {
                return error as? HTTPError ?? HTTPError(status: 400, code: "invalid_field", message: "\(error)")
            }
        }
        for field in device.body.keys.sorted() {
            let value = device.body[field]!
            for nested in ["attributes", "consents"] where field == nested {
                for (key, item) in (value.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                    if let error = refusal([field: .object([key: item])]) {
                        let column = device.columns["\(field).\(key)"] ?? device.columns[field] ?? field
                        let rule = field == "attributes" ? "invalid_attribute" : "invalid_consent"
                        return ImportRowError(column: column, rule: rule, message: error.message)
                    }
                }
            }
            if let error = refusal([field: value]) {
                let column = device.columns[field] ?? (field == "attributes" ? imported.attributesColumn : field)
                return ImportRowError(column: column, rule: "invalid_\(field)", message: error.message)
            }
        }
        return ImportRowError(column: device.sourceColumn, rule: "invalid_row", message: "the row is refused")
    }
}
