import TidingsCrypto
import TidingsStore

/// The store seals its secrets with tidingsd's keyring (docs/security.md, "Secrets at rest").
extension SecretsKeyring: SecretSealer {}
