import Foundation
import HearthCore
import HearthTesting
import Synchronization
import Testing

/// Delivery guarantees: commit order under concurrent writers, heartbeats, and cutting off a client that stops
/// reading.
@Suite struct ListenDeliveryTests {
    @Test func concurrentWritersAreSeenInCommitOrderWithoutGapsOrRepeats() async throws {
        try await withHearth { server in
            let stream = try ListenStream.open(server)
            try await stream.add(1, query: #"{"from":[{"collectionId":"race"}]}"#)
            #expect(try await stream.nextBatch() == ["ADD 1", "CURRENT 1", "marker"])
            let writers = 8
            let perWriter = 25
            let counter = FS.name("race/counter")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for step in 1...perWriter {
                            // Every commit increments the shared counter and sets the writer's own document.
                            let body = #"""
                                {"writes":[
                                  {"transform":{"document":"\#(counter)","fieldTransforms":[{"fieldPath":"n","increment":{"integerValue":"1"}}]}},
                                  {"update":{"name":"\#(FS.name("race/w\(writer)"))","fields":{"n":{"integerValue":"\#(step)"}}}}
                                ]}
                                """#
                            let result = try await server.client.request("POST", FS.root() + ":commit", json: body)
                            guard result.status == 200 else { throw HarnessError("commit failed: \(result)") }
                        }
                    }
                }
                try await group.waitForAll()
            }
            // Every commit was acknowledged, so every commit must be delivered: read until the counter reaches the total.
            let total = writers * perWriter
            var counterValues: [Int] = []
            var writerValues: [String: [Int]] = [:]
            var tokens: [String] = []
            var updateTimes: [Timestamp] = []
            while counterValues.last != total {
                for event in try await stream.nextBatchEvents() {
                    if let token = resumeToken(of: event) { tokens.append(token) }
                    guard let document = event.json?["documentChange"]?["document"],
                        let name = document["name"]?.stringValue,
                        let value = document["fields"]?["n"]?["integerValue"]?.stringValue.flatMap({ Int($0) })
                    else { continue }
                    updateTimes.append(try FS.time(document["updateTime"]))
                    if name == counter {
                        counterValues.append(value)
                    } else {
                        writerValues[FS.id(of: name), default: []].append(value)
                    }
                }
            }
            #expect(counterValues == Array(1...total), "the counter's every value, once each, in commit order")
            for writer in 0..<writers {
                #expect(writerValues["w\(writer)"] == Array(1...perWriter), "writer \(writer)'s values in order")
            }
            #expect(updateTimes == updateTimes.sorted(), "commit times never go back")
            let sequences = tokens.compactMap { Data(base64Encoded: $0) }.map {
                $0.dropFirst().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            }
            #expect(
                sequences == sequences.sorted() && Set(sequences).count == sequences.count,
                "resume tokens strictly increase")
        }
    }

    @Test func quietStreamsGetHeartbeats() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--listen-heartbeat", "0.2"]
        try await withHearth(options) { server in
            let stream = try ListenStream.open(server)
            try await stream.client.wait(for: "three heartbeats") { $0.comments >= 3 }
            try await stream.add(1, documents: ["beat/a"])
            _ = try await stream.nextBatch()
            try await server.set("beat/a", intFields(1))
            #expect(
                try await stream.nextBatch() == ["change beat/a [1]", "marker"], "heartbeats do not disturb events")
        }
    }

    @Test func aClientThatStopsReadingIsCutOffAndOthersCarryOn() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--listen-buffer", "262144"]
        try await withHearth(options) { server in
            let slow = try ListenStream.open(server, receiveBuffer: 4096)
            let healthy = try ListenStream.open(server)
            try await slow.add(1, query: #"{"from":[{"collectionId":"flood"}]}"#)
            try await healthy.add(1, query: #"{"from":[{"collectionId":"flood"}]}"#)
            _ = try await slow.nextBatch()
            _ = try await healthy.nextBatch()
            slow.client.pause()
            let filler = String(repeating: "x", count: 20_000)
            var writes = 0
            var cutOff = false
            // Write ~20 KB documents until the server gives up on the paused client (its session disappears).
            while !cutOff && writes < 2000 {
                try await server.set(
                    "flood/d\(writes % 20)", #"{"blob":{"stringValue":"\#(filler)"},"i":{"integerValue":"\#(writes)"}}"#
                )
                writes += 1
                _ = try await healthy.nextBatch()
                // An unknown target: 400 while the session lives, 404 once it is gone.
                cutOff = try await slow.post(#"{"removeTarget":999}"#).status == 404
            }
            #expect(cutOff, "the paused client was never cut off after \(writes) writes of 20 KB")
            slow.client.resume()
            try await slow.client.wait(for: "the cut-off stream to end") { $0.ended }
            let delivered = slow.client.allEvents.filter { describeListen($0).hasPrefix("change") }.count
            #expect(
                delivered < writes, "the slow client got everything (\(delivered) of \(writes)); it was not cut off")
            try await server.set("flood/after", intFields(1))
            #expect(
                try await healthy.nextBatch() == ["change flood/after [1]", "marker"], "the other client carries on")
        }
    }
}
