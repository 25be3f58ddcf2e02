import Foundation
import Hearth
import HearthModels
import HearthTestSupport
import Testing

/// The stand-in for `UITableViewController`: `reloadData()` renders every row through the controller's own cell
/// code, as a table view asks its data source, and a test waits for the rendering it expects.
@MainActor
class TableViewController {
    let tableView = TableView()

    init() { tableView.controller = self }

    func viewDidLoad() {}
    func numberOfRows() -> Int { 0 }
    func cellText(at row: Int) -> String { "" }
}

/// The rows on screen after each `reloadData()`.
@MainActor
final class TableView {
    weak var controller: TableViewController?
    private(set) var rows: [String] = []
    private(set) var reloads = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func reloadData() {
        guard let controller else { return }
        rows = (0..<controller.numberOfRows()).map { controller.cellText(at: $0) }
        reloads += 1
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// Waits, without polling, until the screen shows `expected`.
    func waitForRows(_ expected: [String]) async -> [String] {
        while rows != expected {
            await withCheckedContinuation { waiters.append($0) }
        }
        return rows
    }
}

/// Seed 001, the Ballcap todo tutorial's data code (App/Ballcap, unchanged but for its imports), against a real
/// `hearth serve --dev`.
extension SeedTests {
    @Suite("Seed 001: the Ballcap todo tutorial against a real server")
    @MainActor
    struct Ballcap {
        /// What the server holds, read by a second app with a cache of its own: each task's row as the screen renders it.
        private func serverRows(_ checker: HearthApp) async throws -> [String] {
            let snapshot = try await Firestore.firestore(app: checker).collection("tasks").order(by: "createdAt")
                .getDocuments(source: .server)
            return snapshot.documents.map { document in
                (document.get("title") as? String ?? "?") + (document.get("isCompleted") as? Bool == true ? " ✓" : "")
            }
        }

        /// Waits until the server holds what the screen shows (the tutorial's writes do not tell it when they land).
        private func waitForServer(_ rows: [String], _ checker: HearthApp) async throws -> [String] {
            let deadline = ContinuousClock.now + .seconds(20)
            var held = try await serverRows(checker)
            while held != rows, ContinuousClock.now < deadline {
                try await _Concurrency.Task.sleep(for: .milliseconds(20))
                held = try await serverRows(checker)
            }
            return held
        }

        @Test func todosAddedListedLiveEditedCompletedAndDeleted() async throws {
            try await withDefaultAppServer { server in
                let checker = server.app("checker")
                let screen = TaskListViewController()
                screen.viewDidLoad()
                #expect(await screen.tableView.waitForRows([]) == [])

                screen.addTask(title: "Buy milk")
                // The new row shows before the server has the task, then the server agrees.
                #expect(await screen.tableView.waitForRows(["Buy milk"]) == ["Buy milk"])
                #expect(screen.changeLog.contains { $0.insertions.map { $0[\.title] } == ["Buy milk"] })
                #expect(try await waitForServer(["Buy milk"], checker) == ["Buy milk"])

                screen.addTask(title: "Walk the dog")
                let two = ["Buy milk", "Walk the dog"]
                #expect(await screen.tableView.waitForRows(two) == two)
                #expect(try await waitForServer(two, checker) == two)

                screen.editTask(at: 0, title: "Buy oat milk", memo: "the blue carton")
                let edited = ["Buy oat milk", "Walk the dog"]
                #expect(await screen.tableView.waitForRows(edited) == edited)
                #expect(try await waitForServer(edited, checker) == edited)
                let firstID = try #require(screen.dataSource?[0].id)
                let stored = try #require(try await Task.get(id: firstID))
                #expect(stored[\.memo] == "the blue carton" && stored[\.title] == "Buy oat milk")

                screen.didSelectRow(at: 1)
                let completed = ["Buy oat milk", "Walk the dog ✓"]
                #expect(await screen.tableView.waitForRows(completed) == completed)
                #expect(try await waitForServer(completed, checker) == completed)
                // The pending ServerTimestamp is the server's time once stored.
                let secondID = try #require(screen.dataSource?[1].id)
                let walked = try #require(try await Task.get(id: secondID, source: .server))
                guard case .resolved(let time)? = walked[\.completedAt] else {
                    Issue.record(
                        "completedAt should be resolved by the server, got \(String(describing: walked[\.completedAt]))"
                    )
                    return
                }
                #expect(time.dateValue() <= Date())

                screen.commitDelete(at: 0)
                #expect(await screen.tableView.waitForRows(["Walk the dog ✓"]) == ["Walk the dog ✓"])
                #expect(
                    screen.changeLog.contains {
                        $0.deletions.map { $0[\.title] } == ["Buy oat milk"] && $0.insertions.isEmpty
                    }, "the delete is one step that removes the row and adds none")
                #expect(try await waitForServer(["Walk the dog ✓"], checker) == ["Walk the dog ✓"])
                screen.dataSource?.stop()
            }
        }
    }
}
