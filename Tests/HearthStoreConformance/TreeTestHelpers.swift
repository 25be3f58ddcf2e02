public import HearthCore
public import HearthStore
import Synchronization
import Testing

/// A tree location from its slash-separated text.
public func treePath(_ text: String) -> TreePath { try! TreePath(validating: text) }

/// A JSON value from its text.
public func json(_ text: String) -> JSONValue { try! JSONParser.parse(text) }

extension TreeCommitter {
    /// Writes and waits.
    public func apply(_ write: TreeWrite) async -> Result<TreeWriteOutcome, HearthError> {
        await withCheckedContinuation { continuation in
            self.write(write) { continuation.resume(returning: $0) }
        }
    }

    /// PUTs JSON text at a path in namespace `ns` and returns the outcome.
    @discardableResult
    public func put(
        _ path: String, _ text: String, ns: String = "ns", ifMatch: String? = nil
    ) async throws -> TreeWriteOutcome {
        let location = treePath(path)
        let value = try TreeWriteValue(json: json(text), at: location)
        return try await apply(TreeWrite(namespace: ns, path: location, operation: .put(value), ifMatch: ifMatch)).get()
    }

    /// PATCHes `{"relative/path": value}` at a path.
    @discardableResult
    public func patch(_ path: String, _ text: String, ns: String = "ns") async throws -> TreeWriteOutcome {
        let location = treePath(path)
        let entries = try json(text).objectValue!.map { entry in
            let relative = treePath(entry.key)
            return (path: relative, value: try TreeWriteValue(json: entry.value, at: location.appending(relative)))
        }
        return try await apply(TreeWrite(namespace: ns, path: location, operation: .patch(entries))).get()
    }
}

extension TreeReader {
    /// The value at a path as JSON in `format`.
    public func value(_ path: String, ns: String = "ns", _ format: TreeFormat = .plain) throws -> JSONValue {
        TreeNode.json(try read(ns, at: treePath(path), auth: nil).node, format)
    }
}

extension TreeWriteOutcome {
    /// The committed change, or a test failure.
    public var change: TreeChange? {
        if case .committed(let change) = self { return change }
        Issue.record("expected a committed write, got \(self)")
        return nil
    }
}

/// A value shared between concurrent callbacks.
public final class TreeLocked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    /// A box holding `value`.
    public init(_ value: Value) { mutex = Mutex(value) }
    /// The value now.
    public var value: Value { mutex.withLock { $0 } }
    /// Changes the value under the lock.
    @discardableResult
    public func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}
