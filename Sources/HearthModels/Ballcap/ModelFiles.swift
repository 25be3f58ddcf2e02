import Foundation
import Hearth

/// The ``File``s a model holds — as properties, optionals, array elements or dictionary values, in nested structs
/// too — found by reflection, as Ballcap finds a document's files when it saves or deletes it.
enum ModelFiles {
    /// How deep into nested values the search goes.
    static let depth = 8

    /// Every distinct file in `model`, in property order.
    static func files(in model: Any) -> [File] {
        var found: [File] = []
        var seen: Set<ObjectIdentifier> = []
        collect(model, depth: depth, into: &found, seen: &seen)
        return found
    }

    private static func collect(_ value: Any, depth: Int, into found: inout [File], seen: inout Set<ObjectIdentifier>) {
        if let file = value as? File {
            if seen.insert(ObjectIdentifier(file)).inserted { found.append(file) }
            return
        }
        let mirror = Mirror(reflecting: value)
        // Other objects (references, app handles) are not the model's own values: their insides are not searched.
        guard depth > 0, mirror.displayStyle != .class else { return }
        for child in mirror.children { collect(child.value, depth: depth - 1, into: &found, seen: &seen) }
    }

    /// Uploads, one after another, the files in `model` with bytes not yet stored (``File/hasUnsavedBytes``), so
    /// their download URLs are known before the document is written.
    static func uploadNew(in model: Any) async throws { try await uploadNew(files(in: model)) }

    /// Uploads, one after another, those of `files` with bytes not yet stored.
    static func uploadNew(_ files: [File]) async throws {
        for file in files where file.hasUnsavedBytes { try await file.save() }
    }

    /// Deletes the stored bytes of every file in `model`; one already gone counts as deleted.
    static func delete(in model: Any) async throws { try await delete(files(in: model)) }

    /// Deletes the stored bytes of each of `files`; one already gone counts as deleted.
    static func delete(_ files: [File]) async throws {
        for file in files {
            do {
                try await file.delete()
            } catch let error as StorageError where error.code == .objectNotFound {
                continue
            }
        }
    }
}
