/// Thrown out of a dry run's transaction so the backend rolls it back, carrying what the batch would have done.
package struct ImportDryRunRollback: Error {
    package let result: ImportBatchResult

    package init(result: ImportBatchResult) { self.result = result }
}
