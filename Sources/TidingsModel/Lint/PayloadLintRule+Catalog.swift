extension PayloadLintRule {
    /// Every built-in rule, one line each. Codes are stable: tools and docs (`docs/lint-rules.md`) rely on them.
    public static let catalog: [PayloadLintRule] = {
        typealias C = PayloadLintChecks
        return [
            // Size and the aps object.
            .init("payload_too_large", .error, "payload over 4096 bytes (5120 for VoIP)", C.payloadTooLarge),
            .init("aps_not_object", .error, "aps is not a JSON object", C.apsNotObject),
            .init("no_aps", .info, "the payload has no aps object", C.noAps),
            .init("unknown_aps_key", .warning, "aps keys Apple does not document", C.unknownApsKeys),
            .init("unknown_alert_key", .warning, "aps.alert keys Apple does not document", C.unknownAlertKeys),
            .init("aps_wrong_type", .error, "a documented aps key of the wrong JSON type", C.apsWrongType),
            .init("aps_flag_not_one", .warning, "content-available or mutable-content other than 1", C.apsFlagNotOne),
            .init("empty_grouping_key", .warning, "thread-id or category is an empty string", C.emptyGroupingKey),
            // What is shown and how it is delivered.
            .init("empty_alert", .error, "an alert with no text and no localisation key", C.emptyAlert),
            .init("loc_args_without_key", .warning, "localisation arguments without their key", C.locArgsWithoutKey),
            .init(
                "background_with_alert", .warning, "content-available together with alert text", C.backgroundWithAlert),
            .init(
                "background_with_sound_or_badge", .warning, "a background push that sets sound or badge",
                C.backgroundWithSoundOrBadge),
            .init(
                "mutable_content_missing", .error, "media, buttons or badge increment without mutable-content",
                C.mutableContentMissing),
            .init(
                "mutable_content_without_alert", .warning, "mutable-content on a push without alert text",
                C.mutableContentWithoutAlert),
            .init(
                "relevance_score_out_of_range", .warning, "relevance-score outside 0…1", C.relevanceScoreOutOfRange),
            .init(
                "unknown_interruption_level", .warning, "an interruption-level iOS does not document",
                C.unknownInterruptionLevel),
            .init(
                "critical_volume_out_of_range", .warning, "critical sound volume outside 0…1",
                C.criticalVolumeOutOfRange),
            .init("sound_without_name", .error, "an aps.sound object without a name", C.soundWithoutName),
            .init(
                "unsupported_sound_file", .warning, "a custom sound iOS cannot play (not .aiff, .wav or .caf)",
                C.unsupportedSoundFile),
            // Buttons and links.
            .init("too_many_buttons", .warning, "more buttons than iOS shows (4)", C.tooManyButtons),
            .init(
                "buttons_over_vendor_limit", .info, "4 buttons in an NHN Cloud payload (it allows 3)",
                C.buttonsOverVendorLimit),
            .init("duplicate_button_id", .error, "two buttons with one id", C.duplicateButtonIDs),
            .init("button_without_id", .error, "a button with an empty id", C.buttonsWithoutID),
            .init("button_without_title", .error, "a button (reply included) with no title", C.buttonsWithoutTitle),
            .init(
                "invalid_action_url", .error, "a tap or button URL that is not a valid absolute URL",
                C.invalidActionURLs),
            .init("web_url_not_http", .error, "a web action whose URL is not http(s)", C.webURLsNotHTTP),
            // Media.
            .init("invalid_media_url", .error, "a media URL that is not a valid absolute URL", C.invalidMediaURL),
            .init("media_url_not_https", .error, "a media URL that is not HTTPS", C.mediaURLNotHTTPS),
            .init("media_kind_mismatch", .warning, "a media kind the file extension contradicts", C.mediaKindMismatch),
            .init(
                "bundled_media_without_extension", .error, "bundled media named without a file extension",
                C.bundledMediaWithoutExtension),
            // Inbox, tracking and leftovers.
            .init("inbox_expired", .warning, "an inbox expiry in the past", C.inboxExpired),
            .init("missing_message_id", .info, "no message id to de-duplicate events on", C.missingMessageID),
            .init("unrecognized_keys", .info, "vendor keys Tidings keeps but does not understand", C.unrecognizedKeys),
        ]
    }()
}
