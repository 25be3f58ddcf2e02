import HearthCore

/// A path from text that is known to be valid.
func tp(_ text: String) -> TreePath { try! TreePath(validating: text) }

/// JSON from text that is known to be valid.
func js(_ text: String) -> JSONValue { try! JSONParser.parse(text) }

/// A node from JSON text (export format accepted).
func node(_ text: String, at path: String = "/") -> TreeNode? {
    try! TreeWriteValue(json: js(text), at: tp(path)).node
}
