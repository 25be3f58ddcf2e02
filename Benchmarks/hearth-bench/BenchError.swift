/// A failure that stops the benchmark: a load that did not run cleanly, a server that misbehaved.
struct BenchError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
