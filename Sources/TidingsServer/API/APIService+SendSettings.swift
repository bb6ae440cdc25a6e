import Foundation
import TidingsCampaigns
import TidingsHTTP
import TidingsModel
import TidingsStore

/// An app's send settings for an admin key: the ceiling on its push rate, the frequency cap on marketing pushes,
/// and the default time to live of its messages (docs/campaigns.md).
extension APIService {
    func sendSettingsRoutes() -> [HTTPRoute] {
        [
            HTTPRoute("GET", "/v1/admin/apps/{app}/send-settings") { try await self.adminGetSendSettings($0) },
            HTTPRoute("PATCH", "/v1/admin/apps/{app}/send-settings") { try await self.adminUpdateSendSettings($0) },
        ]
    }

    func adminGetSendSettings(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try sendSettingsApp(request)
        return json(Self.sendSettingsJSON(app, try storeCall { try store.sendSettings(appID: app.id) }))
    }

    /// `PATCH /v1/admin/apps/{app}/send-settings`: `rate_per_second`, `frequency_cap` (`{"count", "window_seconds"}`)
    /// and `default_ttl`; `null` removes one (no ceiling, no cap, the server's TTL); members left out stay.
    func adminUpdateSendSettings(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try sendSettingsApp(request)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["rate_per_second", "frequency_cap", "default_ttl"])
        var settings = try storeCall { try store.sendSettings(appID: app.id) }
        if let value = body["rate_per_second"] {
            settings.ratePerSecond = try Self.optionalInteger(
                value, "rate_per_second", 1...Int64(AppSendSettings.maximumRatePerSecond)
            ).map(Int.init)
        }
        if let value = body["default_ttl"] {
            settings.defaultTTLSeconds = try Self.optionalInteger(
                value, "default_ttl", 0...MessageRequest.maximumTTLSeconds)
        }
        if let value = body["frequency_cap"] {
            settings.frequencyCap = try Self.frequencyCap(value)
        }
        try storeCall { try store.updateSendSettings(appID: app.id, settings) }
        logger.info("app send settings changed", metadata: ["app_id": app.id])
        return json(Self.sendSettingsJSON(app, settings))
    }

    private func sendSettingsApp(_ request: HTTPRequest) throws -> AppRecord {
        let reference = try identifier(request, "app")
        return try storeCall { try AppAdministration(store: store, clock: clock).app(reference) }
    }

    static func frequencyCap(_ value: JSONValue) throws -> FrequencyCap? {
        if value.isNull { return nil }
        guard let object = value.objectValue else {
            throw HTTPError(
                status: 400, code: "invalid_field",
                message: #"frequency_cap must be {"count": N, "window_seconds": S} or null"#)
        }
        try allowOnly(object, ["count", "window_seconds"])
        guard let count = object["count"], !count.isNull, let window = object["window_seconds"], !window.isNull else {
            throw HTTPError(
                status: 400, code: "invalid_field", message: "frequency_cap needs both count and window_seconds")
        }
        return FrequencyCap(
            count: Int(try optionalInteger(count, "frequency_cap.count", 1...1000)!),
            windowSeconds: try optionalInteger(
                window, "frequency_cap.window_seconds", 60...FrequencyCap.maximumWindowSeconds)!)
    }

    /// An integer in `range`, or nil for `null`. - Throws: 400 `invalid_field` naming the field and the range.
    static func optionalInteger(_ value: JSONValue, _ field: String, _ range: ClosedRange<Int64>) throws -> Int64? {
        if value.isNull { return nil }
        guard case .integer(let number) = value, range.contains(number) else {
            throw HTTPError(
                status: 400, code: "invalid_field",
                message: "\(field) must be a whole number from \(range.lowerBound) to \(range.upperBound), or null")
        }
        return number
    }

    static func sendSettingsJSON(_ app: AppRecord, _ settings: AppSendSettings) -> JSONValue {
        [
            "app_id": .string(app.id),
            "rate_per_second": settings.ratePerSecond.map { .integer(Int64($0)) } ?? .null,
            "frequency_cap": settings.frequencyCap.map { cap in
                ["count": .integer(Int64(cap.count)), "window_seconds": .integer(cap.windowSeconds)]
            } ?? .null,
            "default_ttl": settings.defaultTTLSeconds.map(JSONValue.integer) ?? .null,
        ]
    }
}
