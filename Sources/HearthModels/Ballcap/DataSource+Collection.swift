public import Observation

extension DataSource: @MainActor RandomAccessCollection {
    /// The first index, `0`.
    public var startIndex: Int { 0 }
    /// One past the last index.
    public var endIndex: Int { documents.count }
    /// The element at `index`.
    public subscript(index: Int) -> Element { documents[index] }

    /// The index of the element naming the same document as `element`.
    public func firstIndex(of element: Element) -> Int? { documents.firstIndex { $0.path == element.path } }
}

#if canImport(Combine)
public import Combine

/// SwiftUI views hold a data source as `@ObservedObject`/`@StateObject`: every step publishes the change.
extension DataSource: ObservableObject {}
#endif

/// Views and code using Observation (`withObservationTracking`, SwiftUI on Apple platforms; Linux too) follow the
/// list through ``DataSource/documents`` and the collection's elements.
extension DataSource: Observable {}

extension DataSource {
    /// Tells SwiftUI the list is about to change (on platforms with Combine).
    func willChange() {
        #if canImport(Combine)
        objectWillChange.send()
        #endif
    }
}
