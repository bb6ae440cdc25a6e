/// Facts about this SDK build.
public enum TidingsSDK {
    /// The SDK's version, sent as `sdk_version` with the installation and in `User-Agent`.
    public static let version = "0.1.0"
    /// The oldest iOS the SDK runs on: Package.swift's deployment target (docs/Integration.md says why).
    public static let minimumIOSVersion = 16
}
