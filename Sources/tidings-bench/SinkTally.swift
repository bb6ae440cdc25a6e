/// What an ``H2OSink`` received, counted from its access log lines (`/3/device/TOKEN APNS-ID`): each push is
/// one line, so a device token seen twice is a push sent twice to one device (one campaign a sink), and an
/// `apns-id` seen twice is the same delivery sent twice.
struct SinkTally {
    /// Every push request the sink answered.
    let pushes: Int
    /// The distinct device tokens pushed to.
    let devices: Int
    /// Pushes beyond the first to a device: `pushes - devices`.
    var duplicateDevicePushes: Int { pushes - devices }
    /// Pushes whose `apns-id` an earlier push already carried.
    let duplicateAPNsIDs: Int

    init(lines: [Substring]) {
        var tokens = Set<Substring>()
        var apnsIDs = Set<Substring>()
        var repeatedIDs = 0
        for line in lines {
            let fields = line.split(separator: " ", maxSplits: 1)
            tokens.insert(fields[0].dropFirst("/3/device/".count))
            if fields.count > 1, fields[1] != "-", !apnsIDs.insert(fields[1]).inserted { repeatedIDs += 1 }
        }
        pushes = lines.count
        devices = tokens.count
        duplicateAPNsIDs = repeatedIDs
    }
}
