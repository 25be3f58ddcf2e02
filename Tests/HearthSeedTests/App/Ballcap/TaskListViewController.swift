// Seed 001 (the Ballcap todo tutorial): the list screen's data code as written against Ballcap; the only change is
// the import (was: `import UIKit`, `import Firebase` and `import Ballcap`). `UITableViewController` and its
// `tableView` are replaced by the headless `TableView` the test drives; the calls are the tutorial's, in its order.
import HearthModels

final class TaskListViewController: TableViewController {

    var dataSource: DataSource<Task>?

    override func viewDidLoad() {
        super.viewDidLoad()
        self.dataSource = Task.order(by: "createdAt").limit(to: 30).dataSource()
            .retrieve(from: { (_, snapshot, done) in
                guard let task: Task = try? Task(snapshot: snapshot) else {
                    done(nil)
                    return
                }
                done(task)
            })
            .onChanged({ [weak self] (_, snapshot) in
                self?.changeLog.append(snapshot.changes)
                self?.tableView.reloadData()
            })
            .listen()
    }

    override func numberOfRows() -> Int {
        return self.dataSource?.count ?? 0
    }

    override func cellText(at row: Int) -> String {
        let task: Task = self.dataSource![row]
        return task[\.title] + (task[\.isCompleted] ? " ✓" : "")
    }

    // The "+" button's alert: a new task with the entered title.
    func addTask(title: String) {
        let task: Task = Task()
        task[\.title] = title
        task.save()
    }

    // The edit screen's "Save" button.
    func editTask(at row: Int, title: String, memo: String) {
        let task: Task = self.dataSource![row]
        task[\.title] = title
        task[\.memo] = memo
        task.update()
    }

    // Tapping a row checks it off (or back on).
    func didSelectRow(at row: Int) {
        let task: Task = self.dataSource![row]
        task[\.isCompleted].toggle()
        task[\.completedAt] = task[\.isCompleted] ? .pending : nil
        task.update()
    }

    // Swipe to delete.
    func commitDelete(at row: Int) {
        let task: Task = self.dataSource![row]
        task.delete()
    }

    // Headless driver: what each step changed, as a table view would animate it, for the test to check.
    var changeLog: [DataSource<Task>.Changes] = []
}
