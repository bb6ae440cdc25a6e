import TidingsSQLite

extension EventStore {
    /// Readies the shared store for the app's suspension: waits for a deferred checkpoint, stops scheduling
    /// new ones, and copies the log back now, while the caller's background task still runs.
    ///
    /// iOS terminates a suspended app that holds a lock on a file in a shared container (0xdead10cc). The
    /// store takes locks only inside its calls, and those return before the caller goes on; the one piece
    /// of work that ran on its own, later, was the deferred checkpoint. Call this at the end of the work
    /// done on entering the background (``TidingsClient/didEnterBackground()`` does), and
    /// ``resumeAfterSuspension()`` when the app returns.
    public func prepareForSuspension() {
        guard let checkpointer else { return }
        checkpointer.suspend()
        checkpointer.checkpoint()
    }

    /// Lets deferred checkpoints run again after ``prepareForSuspension()``.
    public func resumeAfterSuspension() {
        checkpointer?.resume()
    }
}
