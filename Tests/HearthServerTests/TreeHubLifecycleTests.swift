import Foundation
import HearthCore
import HearthListen
import HearthLog
import Synchronization
import Testing

@testable import HearthServer

/// The tree's listener hub lives and dies with the application: `start()` starts its thread, `stop()` ends every
/// tree stream and that thread before the database closes.
@Suite("Tree hub lifecycle")
struct TreeHubLifecycleTests {
    /// Records whether the hub ended the stream.
    final class Sink: TreeListenSink {
        let events = Mutex<[String]>([])
        let closed = Mutex(false)
        var capacity: Int { 1 << 20 }
        var isClosed: Bool { closed.withLock { $0 } }
        func send(_ event: TreeEvent, frame: [UInt8]) -> Bool {
            events.withLock { $0.append(event.name) }
            return true
        }
        func refuseOversized(location: TreePath, bytes: Int, capacity: Int) {}
        func close() { closed.withLock { $0 = true } }
    }

    @Test("after stop() the tree hub's thread is gone and its streams have ended")
    func stopEndsTheTreeHub() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-treehub-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory
        configuration.port = 0
        configuration.devMode = true
        let app = try HearthApplication(configuration: configuration, logger: Logger(level: .error) { _ in })
        #expect(!app.treeHub.isRunning)
        try app.start()
        #expect(app.treeHub.isRunning)
        let sink = Sink()
        app.treeHub.open(TreeListenRequest(namespace: configuration.projectID, location: .root), sink: sink)
        let deadline = ContinuousClock.now + .seconds(10)
        while sink.events.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(sink.events.withLock { $0.first } == "put")
        app.stop()
        #expect(!app.treeHub.isRunning)
        #expect(sink.isClosed)
        #expect(app.treeHub.count == 0)
    }
}
