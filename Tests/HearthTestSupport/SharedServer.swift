public import Testing

/// One server shared by the tests of a suite, started with the trait's `serve` arguments; the tests use unique
/// collections and emails, so they never collide.
public struct SharedServer: SuiteTrait, TestScoping {
    @TaskLocal static var current: TestServer?

    /// What `hearth serve --dev` is started with, besides the harness's own arguments.
    let arguments: [String]

    /// Not applied again to each test of the suite: the suite's one server serves them all.
    public var isRecursive: Bool { false }

    /// The server of the suite being run.
    public static var server: TestServer {
        get throws {
            guard let current else { throw HarnessError("No shared server: add .sharedServer to the suite") }
            return current
        }
    }

    /// Starts the suite's server, runs the suite and stops the server however the suite ends.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if Self.current != nil {
            try await function()
            return
        }
        let server = try await TestServer.start(arguments: arguments)
        defer { server.stop() }
        try await Self.$current.withValue(server) { try await function() }
    }
}

extension Trait where Self == SharedServer {
    /// One dev-mode server for the whole suite.
    public static var sharedServer: SharedServer { SharedServer(arguments: []) }

    /// One dev-mode server for the whole suite, started with `arguments` (such as `--database-rules FILE`).
    public static func sharedServer(arguments: [String]) -> SharedServer { SharedServer(arguments: arguments) }
}
