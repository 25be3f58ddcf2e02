import Foundation
import HearthCore
import HearthStore
import Testing

@testable import HearthStoreSQLite

/// A tree engine on a fresh temporary store.
final class TemporaryTree {
    let temporary: TemporaryStore
    let tree: SQLiteTreeStore

    init() throws {
        temporary = try TemporaryStore()
        tree = SQLiteTreeStore(store: temporary.store)
    }
}

func treePath(_ text: String) -> TreePath { try! TreePath(validating: text) }

func json(_ text: String) -> JSONValue { try! JSONParser.parse(text) }

extension SQLiteTreeStore {
    /// Writes and waits.
    func apply(_ write: TreeWrite) async -> Result<TreeWriteOutcome, HearthError> {
        await withCheckedContinuation { continuation in
            self.write(write) { continuation.resume(returning: $0) }
        }
    }

    /// PUTs JSON text at a path in namespace `ns` and returns the committed change.
    @discardableResult
    func put(_ path: String, _ text: String, ns: String = "ns", ifMatch: String? = nil) async throws -> TreeWriteOutcome
    {
        let location = treePath(path)
        let value = try TreeWriteValue(json: json(text), at: location)
        return try await apply(TreeWrite(namespace: ns, path: location, operation: .put(value), ifMatch: ifMatch)).get()
    }

    /// PATCHes `{"relative/path": value}` at a path.
    @discardableResult
    func patch(_ path: String, _ text: String, ns: String = "ns") async throws -> TreeWriteOutcome {
        let location = treePath(path)
        let entries = try json(text).objectValue!.map { entry in
            let relative = treePath(entry.key)
            return (path: relative, value: try TreeWriteValue(json: entry.value, at: location.appending(relative)))
        }
        return try await apply(TreeWrite(namespace: ns, path: location, operation: .patch(entries))).get()
    }

    /// The value at a path as JSON in `format`.
    func value(_ path: String, ns: String = "ns", _ format: TreeFormat = .plain) throws -> JSONValue {
        TreeNode.json(try read(ns, at: treePath(path), auth: nil).node, format)
    }
}

extension TreeWriteOutcome {
    /// The committed change, or a test failure.
    var change: TreeChange? {
        if case .committed(let change) = self { return change }
        Issue.record("expected a committed write, got \(self)")
        return nil
    }
}
