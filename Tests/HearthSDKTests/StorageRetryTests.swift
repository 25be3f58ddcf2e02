import Foundation
import Hearth
import HearthTestSupport
import Synchronization
import Testing

/// An upload outlives the server going away: chunks the network lost are sent again from the server's offset once
/// it is back (the resumable session is kept on disk).
@Suite("Storage uploads across a server restart", .timeLimit(.minutes(2)))
struct StorageRetryTests {
    @Test func anUploadFinishesAfterTheServerRestarted() async throws {
        let server = try await TestServer.start()
        var restarted: TestServer?
        defer { (restarted ?? server).stop() }
        let callbacks = TestQueue()
        let name = "retry-\(UUID().uuidString.prefix(8))"
        HearthApp.configure(
            name: name,
            options: HearthOptions(
                serverURL: server.baseURL, projectID: "demo",
                storageDirectory: server.directory.appendingPathComponent("clients/\(name)")),
            transport: SlowTransport(sendDelay: .milliseconds(10)))
        let storage = Storage.storage(app: try #require(HearthApp.app(name: name)))
        storage.callbackQueue = callbacks.queue
        storage.uploadChunkSizeBytes = 256 << 10
        let file = storage.reference().child(unique("restart")).child("five.bin")
        let bytes = StorageTaskTests.fiveMiB
        let done = Events<String>()
        let paused = Events<Int64>()
        let task = file.putData(bytes) { metadata, error in
            done.add(error == nil ? "stored \(metadata?.size ?? -1)" : "failed: \(String(describing: error))")
        }
        // Held at 1 MiB while the server goes away, so the rest is sent to the restarted server.
        let pausedOnce = Mutex(false)
        task.observe(.progress) { snapshot in
            guard (snapshot.progress?.completedUnitCount ?? 0) >= 1 << 20 else { return }
            if pausedOnce.withLock({ flag in
                defer { flag = true }
                return !flag
            }) {
                task.pause()
            }
        }
        task.observe(.pause) { paused.add($0.progress?.completedUnitCount ?? 0) }
        let heldAt = await paused.next()
        await server.halt()
        task.resume()
        try await Task.sleep(for: .milliseconds(600))
        restarted = try await TestServer.start(directory: server.directory, port: server.port)
        let outcome = await done.next()
        #expect(outcome == "stored \(bytes.count)")
        #expect(heldAt >= 1 << 20 && heldAt < Int64(bytes.count))
        #expect(try await file.data(maxSize: 8 << 20) == bytes)
    }
}
