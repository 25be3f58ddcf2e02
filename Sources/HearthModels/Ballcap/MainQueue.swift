import Foundation

/// Where the Ballcap-shaped layer (``Object``, ``DataSource``) runs the SDK's callbacks: on the main actor, as
/// Ballcap's objects live on the main thread. Each callback the SDK delivers (on its callback queue, never inside the
/// call that caused it) is queued to the main queue, so the layer's blocks run there in the order the SDK reported
/// them, whichever callback queue the app chose.
enum MainQueue {
    /// Runs `work` with `value` on the main actor.
    static func run<Value>(_ value: Value, _ work: @escaping @MainActor (Value) -> Void) {
        // The SDK hands each snapshot or error to this one callback and keeps no other use of it, so moving it to
        // the main actor shares nothing.
        nonisolated(unsafe) let value = value
        DispatchQueue.main.async { MainActor.assumeIsolated { work(value) } }
    }

    /// Runs `work` with a callback's two arguments (a snapshot and an error) on the main actor.
    static func run<First, Second>(
        _ first: First, _ second: Second, _ work: @escaping @MainActor (First, Second) -> Void
    ) {
        // As in `run(_:_:)`: the SDK keeps no other use of what it hands this callback.
        nonisolated(unsafe) let first = first
        nonisolated(unsafe) let second = second
        run(()) { _ in work(first, second) }
    }

    /// An SDK callback that hands its snapshot and error to `handle` on the main actor while `owner` is alive (the
    /// callback holds it weakly, so a data source or object that goes away stops hearing).
    static func relay<Owner: AnyObject & Sendable, Snapshot>(
        to owner: Owner, _ handle: @escaping @MainActor (Owner, Snapshot?, (any Error)?) -> Void
    ) -> @Sendable (Snapshot?, (any Error)?) -> Void {
        { [weak owner] snapshot, error in
            run(snapshot, error) { snapshot, error in
                if let owner { handle(owner, snapshot, error) }
            }
        }
    }

    /// Runs `work` on the main queue later, never inside the current call.
    static func later(_ work: @escaping @Sendable () -> Void) { DispatchQueue.main.async(execute: work) }
}

/// An app's block (a completion, a data source's handler) carried through an SDK callback back to the main actor,
/// where it was given and where it runs. Being main-actor isolated, it may cross the SDK's `@Sendable` callbacks.
@MainActor
final class MainActorBound<Value> {
    let value: Value

    init(_ value: Value) { self.value = value }
}
