extension Dictionary where Key == String, Value == HearthCore.Value {
    /// The fields a query's `select` returns: only the values at `paths`, nested as in the document. A path that
    /// does not exist (or runs through a non-map) contributes nothing, `__name__` contributes nothing, and a path
    /// inside another selected path is already covered by it.
    public func projected(onto paths: [FieldPath]) -> [String: HearthCore.Value] {
        var result: [String: HearthCore.Value] = [:]
        for path in paths where path != .documentName {
            if let value = value(at: path) { result.setValue(value, at: path) }
        }
        return result
    }
}
