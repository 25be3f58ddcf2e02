// Seed 001 (the Ballcap todo tutorial): the model as written against Ballcap; the only change is the import (was:
// `import Firebase` and `import Ballcap`).
import HearthModels

final class Task: Object, DataRepresentable, DataListenable {

    override class var name: String { "tasks" }

    struct Model: Modelable, Codable {
        var title: String = ""
        var memo: String = ""
        var isCompleted: Bool = false
        var completedAt: ServerTimestamp? = nil
    }

    var data: Model?

    var listener: ListenerRegistration?
}
