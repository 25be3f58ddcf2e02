import Foundation
import HearthCore

/// A database's queued tree writes as ``PendingWriteSender`` sends them: oldest first, one at a time, each with its
/// idempotency key (`X-Hearth-Write-Id`), so a write resent after its answer was lost is applied once. A write's
/// `await` resumes when the server acknowledged it — or refused it, which also drops it from the queue and takes
/// its effect back out of what observers see.
typealias TreeWriteQueue = PendingWriteSender<TreeWriteChannel>

/// The tree queue's side of ``PendingWriteSender``: writes held in ``TreeLocal/pending`` (and on disk with
/// persistence), sent as the REST call each was made with.
struct TreeWriteChannel: PendingWriteChannel {
    /// The database whose queue this is (it owns this queue for as long as the app lives).
    let database: Database

    func oldest() -> TreeLocalWrite? { database.local.pending.withLock { $0.first } }

    func id(of write: TreeLocalWrite) -> Int64 { write.id }

    func deliver(_ next: TreeLocalWrite) async throws {
        let marks = database.observers.marks()
        let (answer, _) = try await database.send(
            next.method, path: next.path, body: next.method == "DELETE" ? nil : next.body,
            headers: ["X-Hearth-Write-Id": next.writeID])
        database.acknowledged(next, answer: answer, marks: marks)
    }

    func isTransient(_ error: any Error) -> Bool { (error as? DatabaseError)?.code == .unavailable }

    func interrupted() async {}

    func refuse(_ next: TreeLocalWrite) async { database.refused(next) }
}
