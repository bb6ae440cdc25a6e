import TidingsSQLite

extension SQLiteStore {
    public func secretsInventory() throws -> SecretsInventory {
        try reader.read { db in
            var inventory = SecretsInventory()
            for secret in try db.query("SELECT secret FROM push_credentials", row: { $0.blob(at: 0) }) {
                inventory.count(secret)
            }
            for settings in try db.query(
                "SELECT id, settings FROM forwarders", row: { ($0.text(at: 0), $0.text(at: 1)) })
            {
                inventory.count(
                    try SecretCodec.envelope(ofText: settings.1, context: SealedSecret.forwarderContext(id: settings.0))
                        ?? [])
            }
            for secret in try db.query(
                "SELECT secret FROM operator_second_factors", row: { $0.blob(at: 0) })
            {
                inventory.count(secret)
            }
            return inventory
        }
    }

    @discardableResult
    public func resealSecrets(with sealer: any SecretSealer) throws -> Int {
        let target = SecretCodec(sealer: sealer)
        let rewritten = try database.write { db in
            var rewritten = 0
            let credentials = try db.query("SELECT app_id, provider, secret FROM push_credentials") {
                ($0.text(at: 0), PushCredentialRecord.Provider(rawValue: $0.text(at: 1)), $0.blob(at: 2))
            }
            for (appID, provider, stored) in credentials {
                guard let provider, SealedSecret.keyID(of: stored) != sealer.keyID else { continue }
                let context = SealedSecret.pushCredentialContext(appID: appID, provider: provider)
                let resealed = try target.stored(try secrets.plaintext(stored, context: context), context: context)
                try db.run(
                    "UPDATE push_credentials SET secret = ?3 WHERE app_id = ?1 AND provider = ?2",
                    [.text(appID), .text(provider.rawValue), .blob(resealed)])
                rewritten += 1
            }
            for (id, stored) in try db.query(
                "SELECT id, settings FROM forwarders", row: { ($0.text(at: 0), $0.text(at: 1)) })
            {
                let context = SealedSecret.forwarderContext(id: id)
                if let envelope = try SecretCodec.envelope(ofText: stored, context: context),
                    SealedSecret.keyID(of: envelope) == sealer.keyID
                {
                    continue
                }
                let resealed = try target.storedText(
                    try secrets.plaintextText(stored, context: context), context: context)
                try db.run("UPDATE forwarders SET settings = ?2 WHERE id = ?1", [.text(id), .text(resealed)])
                rewritten += 1
            }
            let secondFactors = try db.query("SELECT operator_name, secret FROM operator_second_factors") {
                ($0.text(at: 0), $0.blob(at: 1))
            }
            for (name, stored) in secondFactors where SealedSecret.keyID(of: stored) != sealer.keyID {
                let context = SealedSecret.secondFactorContext(operatorName: name)
                let resealed = try target.sealed(try secrets.plaintext(stored, context: context), context: context)
                try db.run(
                    "UPDATE operator_second_factors SET secret = ?2 WHERE operator_name = ?1",
                    [.text(name), .blob(resealed)])
                rewritten += 1
            }
            return rewritten
        }
        if rewritten > 0 { try truncateLog() }
        return rewritten
    }
}
