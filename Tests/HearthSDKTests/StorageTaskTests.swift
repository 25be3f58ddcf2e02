import Foundation
import Hearth
import HearthTestSupport
import Synchronization
import Testing

/// Upload and download tasks: the resumable protocol in chunks with progress, pause and resume, cancel, and where
/// completions and observers run.
@Suite("Storage tasks against a real server", .sharedServer, .timeLimit(.minutes(2)))
struct StorageTaskTests {
    /// A Storage with its own callback queue and 256 KiB chunks, whose requests each take 10 ms longer than they
    /// would on the loopback, so a pause from an observer lands before the upload is over.
    func storage(_ callbacks: TestQueue) throws -> Storage {
        let name = "storage-\(UUID().uuidString.prefix(8))"
        HearthApp.configure(
            name: name,
            options: HearthOptions(
                serverURL: try SharedServer.server.baseURL, projectID: "demo",
                storageDirectory: try SharedServer.server.directory.appendingPathComponent("clients/\(name)")),
            transport: SlowTransport(sendDelay: .milliseconds(10)))
        let storage = Storage.storage(app: try #require(HearthApp.app(name: name)))
        storage.callbackQueue = callbacks.queue
        storage.uploadChunkSizeBytes = 256 << 10
        return storage
    }

    static let fiveMiB = Data((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })

    @Test func aResumableUploadReportsProgressAndResumesAfterAPause() async throws {
        let callbacks = TestQueue()
        let file = try storage(callbacks).reference().child(unique("big")).child("five.bin")
        let events = Events<(StorageTaskStatus, Int64, Bool)>()
        let task = file.putData(Self.fiveMiB)
        for status in [StorageTaskStatus.resume, .progress, .pause, .success, .failure] {
            task.observe(status) { snapshot in
                events.add((status, snapshot.progress?.completedUnitCount ?? -1, callbacks.isCurrent))
            }
        }
        // Paused from the observer (on the callback queue) once two chunks are in, then resumed.
        let pausedOnce = Mutex(false)
        task.observe(.progress) { snapshot in
            guard (snapshot.progress?.completedUnitCount ?? 0) >= 512 << 10 else { return }
            if pausedOnce.withLock({ flag in
                defer { flag = true }
                return !flag
            }) {
                task.pause()
            }
        }
        let paused = await events.next { $0.0 == .pause }
        try await Task.sleep(for: .milliseconds(300))
        let heldWhilePaused = task.snapshot.progress?.completedUnitCount ?? 0
        try await Task.sleep(for: .milliseconds(300))
        #expect(task.snapshot.progress?.completedUnitCount == heldWhilePaused, "nothing is sent while paused")
        #expect(heldWhilePaused >= paused.1)
        #expect(!events.all.contains { $0.0 == .success })
        task.resume()
        _ = await events.next { $0.0 == .resume }
        let success = await events.next { $0.0 == .success || $0.0 == .failure }
        #expect(success.0 == .success)
        #expect(success.1 == Int64(Self.fiveMiB.count))

        let progress = events.all.filter { $0.0 == .progress }.map(\.1)
        #expect(progress.count >= 10, "one event per 256 KiB chunk, about 20")
        #expect(progress == progress.sorted())
        #expect(events.all.allSatisfy { $0.2 })
        let metadata = try #require(task.metadata)
        #expect(metadata.size == Int64(Self.fiveMiB.count))
        #expect(try await file.data(maxSize: 8 << 20) == Self.fiveMiB)
    }

    @Test func cancelEndsTheUploadWithCancelledAndStoresNothing() async throws {
        let callbacks = TestQueue()
        let file = try storage(callbacks).reference().child(unique("cancelled")).child("five.bin")
        let outcome = Events<String>()
        let task = file.putData(Self.fiveMiB) { metadata, error in
            let code = (error as? StorageError)?.code
            outcome.add(metadata == nil && code == .cancelled ? "cancelled" : "other: \(String(describing: error))")
        }
        let progressed = Events<Int64>()
        task.observe(.progress) { progressed.add($0.progress?.completedUnitCount ?? 0) }
        _ = await progressed.next { $0 > 0 }
        task.cancel()
        #expect(await outcome.next() == "cancelled")
        do {
            _ = try await file.getMetadata()
            Issue.record("a cancelled upload stores nothing")
        } catch {
            #expect((error as? StorageError)?.code == .objectNotFound)
        }
    }

    @Test func putDataAsyncReportsProgressAndResumesAfterIt() async throws {
        let callbacks = TestQueue()
        let file = try storage(callbacks).reference().child(unique("async")).child("one.bin")
        let seen = Mutex<[Int64]>([])
        let bytes = Self.fiveMiB.prefix(1 << 20)
        let metadata = try await file.putDataAsync(Data(bytes)) { progress in
            seen.withLock { $0.append(progress?.completedUnitCount ?? -1) }
        }
        #expect(metadata.size == Int64(bytes.count))
        #expect(seen.withLock { $0 }.contains(Int64(512 << 10)))
    }

    @Test func completionsRunOnTheCallbackQueueAfterTheCall() async throws {
        let callbacks = TestQueue()
        let folder = try storage(callbacks).reference().child(unique("queue"))
        let file = folder.child("small.txt")
        let returned = Mutex(false)
        let calls = Events<String>()
        @Sendable func record(_ name: String) {
            calls.add("\(name) onQueue=\(callbacks.isCurrent) afterCall=\(returned.withLock { $0 })")
        }
        callbacks.run {
            file.putData(Data("x".utf8)) { metadata, error in record(error == nil ? "put" : "put failed") }
            file.getMetadata { _, _ in record("metadata") }
            returned.withLock { $0 = true }
        }
        let first = await calls.next()
        let second = await calls.next()
        #expect(Set([first, second]).count == 2)
        #expect([first, second].allSatisfy { $0.hasSuffix("onQueue=true afterCall=true") })
        callbacks.run {
            file.getData(maxSize: 10) { data, _ in record(data == Data("x".utf8) ? "getData" : "getData failed") }
            file.downloadURL { url, _ in record(url == nil ? "url failed" : "url") }
            folder.listAll { result, _ in record(result?.items.count == 1 ? "listAll" : "listAll failed") }
            file.delete { error in record(error == nil ? "delete" : "delete failed") }
        }
        var names: Set<String> = []
        for _ in 0..<4 {
            let call = await calls.next()
            #expect(call.hasSuffix("onQueue=true afterCall=true"), "\(call)")
            names.insert(String(call.prefix { $0 != " " }))
        }
        #expect(names.contains("getData") && names.contains("delete"))
    }

    @Test func theDefaultCallbackQueueIsTheMainQueue() async throws {
        let storage = Storage.storage(app: try SharedServer.server.app())
        let file = storage.reference().child(unique("main")).child("m.txt")
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        defer { DispatchQueue.main.setSpecific(key: key, value: nil) }
        let onMain = await withCheckedContinuation { continuation in
            file.putData(Data("m".utf8)) { _, error in
                continuation.resume(returning: error == nil && DispatchQueue.getSpecific(key: key) == true)
            }
        }
        #expect(onMain)
    }

    @Test func aDownloadPausesAndResumesWithARangeRequest() async throws {
        let server = try SharedServer.server
        // The real transport, with downloads handed over slowly, so the pause lands mid-transfer.
        let transport = SlowTransport()
        let name = "slow-\(UUID().uuidString.prefix(8))"
        HearthApp.configure(
            name: name,
            options: HearthOptions(
                serverURL: server.baseURL, projectID: "demo",
                storageDirectory: server.directory.appendingPathComponent("clients/\(name)")),
            transport: transport)
        let callbacks = TestQueue()
        let storage = Storage.storage(app: try #require(HearthApp.app(name: name)))
        storage.callbackQueue = callbacks.queue
        let file = storage.reference().child(unique("download")).child("five.bin")
        _ = try await file.putDataAsync(Self.fiveMiB)
        let events = Events<StorageTaskStatus>()
        let done = Events<String>()
        let task = file.getData(maxSize: 8 << 20) { data, error in
            done.add(
                data == Self.fiveMiB ? "same bytes" : "\(data?.count ?? -1) bytes, error: \(String(describing: error))")
        }
        let pausedOnce = Mutex(false)
        task.observe(.progress) { snapshot in
            guard (snapshot.progress?.completedUnitCount ?? 0) > 0 else { return }
            if pausedOnce.withLock({ flag in
                defer { flag = true }
                return !flag
            }) {
                task.pause()
            }
        }
        task.observe(.pause) { _ in events.add(.pause) }
        #expect(await events.next() == .pause)
        try await Task.sleep(for: .milliseconds(200))
        let held = task.snapshot.progress?.completedUnitCount ?? 0
        #expect(held > 0 && held < Int64(Self.fiveMiB.count), "paused mid-transfer")
        task.resume()
        let outcome = await done.next()
        #expect(outcome == "same bytes")
        #expect(transport.ranges == [nil, "bytes=\(held)-"], "the rest came with a range request from the bytes held")
    }
}
