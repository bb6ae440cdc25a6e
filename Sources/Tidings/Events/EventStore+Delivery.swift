import TidingsModel

extension EventStore {
    /// Records a `delivery` event unless this message was already recorded for this installation.
    ///
    /// The extension, the foreground path and the background path all call this; whichever comes first
    /// records the delivery. The check and the enqueue are one transaction on the shared store, so two
    /// processes cannot both win. A message is remembered for ``Configuration/deliveryMemory`` (7 days by
    /// default); after that it counts as new again. Old entries are purged now and then.
    ///
    /// - Returns: true when the event was stored, false when the message had been recorded already.
    /// - Throws: ``EventValidationError`` for an invalid event (including a type other than `delivery`).
    @discardableResult
    public func recordDelivery(_ event: TidingsEvent) throws -> Bool {
        guard event.type == .delivery else {
            throw EventValidationError(
                code: .invalidValue, field: "type",
                message: "recordDelivery takes delivery events, not \(event.type.rawValue)")
        }
        let now = nowMilliseconds
        let pending = try prepare(event, now: now)
        let messageID = event.messageID ?? ""
        let memoryMilliseconds = Int64(configuration.deliveryMemory.seconds * 1000)
        let forgetBefore = now - memoryMilliseconds
        // Purge at most once an hour per process: it is housekeeping, the upsert below is what decides.
        let purge = memory.withLock { memory -> Bool in
            if let last = memory.lastDeliveryPurge, now - last < 3_600_000 { return false }
            memory.lastDeliveryPurge = now
            return true
        }
        return try write { db -> Bool in
            if purge {
                try db.run("DELETE FROM deliveries WHERE seen_at < ?", [.integer(forgetBefore)])
            }
            // A remembered message older than the memory counts as unseen: refresh it and record again.
            try db.run(
                """
                INSERT INTO deliveries(message_id, installation_id, seen_at) VALUES (?, ?, ?)
                ON CONFLICT(message_id, installation_id) DO UPDATE SET seen_at = excluded.seen_at
                WHERE seen_at < ?
                """,
                [.text(messageID), .text(event.installationID), .integer(now), .integer(forgetBefore)])
            guard db.changes == 1 else { return false }
            _ = try self.insert([pending], into: db, now: now)
            return true
        }
    }
}
