import Foundation
public import Hearth
import Observation

/// A document as a shared object — Ballcap's `Object`: subclass it, conform to ``DataRepresentable`` (and
/// ``DataListenable`` to follow changes), and the subclass's ``name`` is its collection.
///
/// ```swift
/// final class Task: Object, DataRepresentable, DataListenable {
///     override class var name: String { "tasks" }
///     struct Model: Modelable, Codable { var title: String = ""; var isCompleted: Bool = false }
///     var data: Model?
///     var listener: ListenerRegistration?
/// }
/// ```
///
/// Objects live on the main actor, as Ballcap's live on the main thread; their callbacks run there. Two objects are
/// equal when they name the same document.
@MainActor
open class Object: Hashable, Referencable {
    /// The collection of this class's documents: the class's name, lowercased (`Task` → `task`), unless overridden.
    nonisolated open class var name: String { String(describing: self).lowercased() }

    /// Where the document lives.
    public nonisolated let documentReference: DocumentReference

    /// The snapshot the object was last read from, `nil` for an object not read from the database.
    public internal(set) var snapshot: DocumentSnapshot?

    /// When the document was first saved (the `createdAt` field); the current time for an object not read back.
    public internal(set) var createdAt = Timestamp(date: Date())

    /// When the document was last saved or updated (the `updatedAt` field); the current time for an object not read
    /// back.
    public internal(set) var updatedAt = Timestamp(date: Date())

    /// An object for the document at `documentReference` (nothing is read or written).
    public required init(_ documentReference: DocumentReference) {
        self.documentReference = documentReference
    }

    /// The document's ID.
    public nonisolated var id: String { documentReference.documentID }

    /// The document's path.
    public nonisolated var path: String { documentReference.path }

    /// Observation's bookkeeping: who read the object's data (``revision``) and must hear when it changes.
    let observation = ObservationRegistrar()

    /// How many times the object's data changed through a read or the key-path subscript; the property Observation
    /// tracks for the data, since `data` itself is declared by the subclass.
    private(set) var revision = 0

    /// Whether saves and updates maintain `createdAt` and `updatedAt` (Ballcap's `shouldIncludedInTimestamp`).
    open var shouldIncludedInTimestamp: Bool { true }

    /// Whether both name the same document.
    public nonisolated static func == (lhs: Object, rhs: Object) -> Bool { lhs.path == rhs.path }

    /// Hashes the document's path.
    public nonisolated func hash(into hasher: inout Hasher) { hasher.combine(path) }

    /// Makes one change to the data (and the times read with it): Combine's subscribers hear of it before, as
    /// `ObservableObject` requires, and Observation's trackers of the data as it happens.
    func changeData(_ body: () -> Void) {
        willChange()
        observation.withMutation(of: self, keyPath: \.revision) {
            revision &+= 1
            body()
        }
    }

    /// Records, for Observation, that the caller read the object's data.
    func observeData() { observation.access(self, keyPath: \.revision) }
}
