public import Observation

#if canImport(Combine)
public import Combine

/// SwiftUI views hold objects as `@ObservedObject`/`@StateObject`: a read by ``DataListenable/listen(includeMetadataChanges:completion:)``
/// and a write through the key-path subscript publish the change, and `$task[\.title]` is a `Binding` to a field.
extension Object: ObservableObject {}
#endif

/// Views and code using Observation (`withObservationTracking`, SwiftUI on Apple platforms; Linux too) follow an
/// object through its key-path subscript: reading `task[\.title]` is tracked, and a change to the data (a listener's
/// read, a write through the subscript) notifies the tracker.
extension Object: Observable {}

extension Object {
    /// Tells SwiftUI the object is about to change (on platforms with Combine).
    func willChange() {
        #if canImport(Combine)
        objectWillChange.send()
        #endif
    }
}
