import HearthCore
import HearthSQLite
import HearthStore

/// The writer's import job (`hearth import`): documents stored exactly as an export holds them, their create and
/// update times included, through the same row, index-entry and change-log code every commit uses.
extension CommitWriter {
    /// Stores `documents` in one savepoint, each over whatever the path holds; returns how many were stored.
    func runImport(_ documents: [DocumentSnapshot]) -> Result<Int, HearthError> {
        let commitTime = nextCommitTime()
        do {
            try connection.savepoint("import") {
                for document in documents {
                    let write = Write(path: document.path, operation: .update(fields: document.fields, mask: nil))
                    let row = try DocumentRows.fetchRow(document.path, in: connection)
                    // The full overwrite worked out at the document's own update time, then given its create time:
                    // the stored row is the exported one, not one stamped by this commit.
                    var outcome = try WriteApplier.applyIgnoringPrecondition(
                        write, to: nil, commitTime: document.updateTime)
                    outcome.document?.createTime = document.createTime
                    outcome.changed = true
                    let prepared = PreparedWrite(
                        write: write, encoded: EncodedFields(precomputing: write), before: row?.document,
                        beforeBody: row?.body, current: try row?.document.snapshot(), outcome: outcome,
                        judgedBefore: nil)
                    _ = try store(prepared, commitTime: commitTime)
                }
            }
            return .success(documents.count)
        } catch let error as HearthError {
            return .failure(error)
        } catch {
            return .failure(.internal("The import failed: \(error)"))
        }
    }
}
