extension SQLiteStore {
    /// The schema version this build migrates a database to: tests compare with it rather than a number that
    /// every appended migration would change.
    public static var latestSchemaVersion: Int { migrations.count }
}
