/// Facts about this SDK build.
public enum TidingsSDK {
    /// The SDK's version, sent as `sdk_version` with the installation and in `User-Agent`.
    public static let version = "0.1.0"
}
