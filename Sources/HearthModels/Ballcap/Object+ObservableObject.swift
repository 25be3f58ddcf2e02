#if canImport(Combine)
public import Combine

/// SwiftUI views hold objects as `@ObservedObject`/`@StateObject`: a read by ``DataListenable/listen(includeMetadataChanges:completion:)``
/// and a write through the key-path subscript publish the change, and `$task[\.title]` is a `Binding` to a field.
extension Object: ObservableObject {}
#endif

extension Object {
    /// Tells SwiftUI the object is about to change (on platforms with Combine).
    func willChange() {
        #if canImport(Combine)
        objectWillChange.send()
        #endif
    }
}
