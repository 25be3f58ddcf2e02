import Dispatch
import HearthCore
import HearthHTTP
import HearthStorage
import Synchronization

/// How an upload's outcome is written in the API that received it (Firebase's v0 or Cloud Storage's JSON API).
struct UploadAnswers: Sendable {
    /// The stored object.
    var stored: @Sendable (StoredObject) -> HTTPResponse
    /// A resumable session that continues with this many bytes.
    var progress: @Sendable (Int64) -> HTTPResponse

    /// Firebase Storage v0: the metadata JSON (`X-Goog-Upload-Status: final` after a resumable upload), and
    /// `X-Goog-Upload-Status: active` with `X-Goog-Upload-Size-Received`.
    static let firebase = UploadAnswers(
        stored: { StorageJSON.response($0, headers: [("X-Goog-Upload-Status", "final")]) },
        progress: { ResumableResponses.active(received: $0) })
}

/// A simple (media) upload streaming into a `BlobWriter`; committed once the body ends, off the HTTP thread
/// because the commit fsyncs the whole file.
final class MediaUploadSink: HTTPBodySink {
    private struct State {
        var writer: BlobWriter?
        var failure: HearthError?
    }

    let maxBodyBytes: Int
    private let state: Mutex<State>
    private let store: FileStore
    private let target: (bucket: String, name: String)
    private let attributes: ObjectAttributes
    private let work: DispatchQueue
    /// Judges the upload again once its real size is known, before it commits.
    private let finalCheck: @Sendable (Int) throws(HearthError) -> Void
    private let answers: UploadAnswers

    init(
        store: FileStore, bucket: String, name: String, attributes: ObjectAttributes, work: DispatchQueue,
        answers: UploadAnswers = .firebase, finalCheck: @escaping @Sendable (Int) throws(HearthError) -> Void
    ) throws(HearthError) {
        self.answers = answers
        self.store = store
        target = (bucket, name)
        self.attributes = attributes
        self.work = work
        self.finalCheck = finalCheck
        maxBodyBytes = store.configuration.maxObjectBytes
        state = Mutex(State(writer: try store.makeWriter()))
    }

    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            do throws(HearthError) {
                try state.writer?.write(chunk)
                return true
            } catch {
                state.failure = error
                state.writer = nil
                return false
            }
        }
    }

    func complete(_ outcome: HTTPBodyOutcome, request: HTTPRequest) -> HTTPReply {
        switch outcome {
        case .tooLarge:
            abandon()
            return .response(StorageErrorResponses.tooLarge(maxBodyBytes))
        case .refused:
            let failure = state.withLock { $0.failure } ?? .internal("The upload was refused.")
            return .response(Responses.error(failure))
        case .complete:
            return .deferred { [self] respond in
                work.async { respond(self.commit()) }
            }
        }
    }

    private func commit() -> HTTPResponse {
        state.withLock { state -> HTTPResponse in
            guard let writer = state.writer else { return Responses.error(.internal("The upload was lost.")) }
            state.writer = nil
            do throws(HearthError) {
                try finalCheck(writer.size)
                let object = try store.commit(
                    writer, bucket: target.bucket, name: target.name, attributes: attributes)
                return answers.stored(object)
            } catch {
                writer.abandon()
                return Responses.error(error)
            }
        }
    }

    func abandon() {
        state.withLock { state in
            state.writer?.abandon()
            state.writer = nil
        }
    }
}

/// One chunk of a resumable upload (`upload`, `upload, finalize`, or `finalize` alone) appended to its session.
final class ResumableChunkSink: HTTPBodySink {
    private struct State {
        var appender: SessionAppender?
        var failure: HearthError?
    }

    let maxBodyBytes: Int
    private let state: Mutex<State>
    private let store: FileStore
    private let session: UploadSession
    private let finalize: Bool
    private let work: DispatchQueue
    private let finalCheck: @Sendable (Int) throws(HearthError) -> Void
    private let answers: UploadAnswers

    init(
        store: FileStore, session: UploadSession, finalize: Bool, work: DispatchQueue,
        answers: UploadAnswers = .firebase, finalCheck: @escaping @Sendable (Int) throws(HearthError) -> Void
    ) throws(HearthError) {
        self.answers = answers
        self.store = store
        self.session = session
        self.finalize = finalize
        self.work = work
        self.finalCheck = finalCheck
        maxBodyBytes = max(0, store.configuration.maxObjectBytes - Int(session.received))
        state = Mutex(State(appender: try store.appender(for: session)))
    }

    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            do throws(HearthError) {
                try state.appender?.write(chunk)
                return true
            } catch {
                state.failure = error
                state.appender = nil
                return false
            }
        }
    }

    func complete(_ outcome: HTTPBodyOutcome, request: HTTPRequest) -> HTTPReply {
        switch outcome {
        case .tooLarge:
            abandon()
            return .response(StorageErrorResponses.tooLarge(store.configuration.maxObjectBytes))
        case .refused:
            let failure = state.withLock { $0.failure } ?? .internal("The chunk was refused.")
            return .response(Responses.error(failure))
        case .complete:
            return .deferred { [self] respond in
                work.async { respond(self.finish()) }
            }
        }
    }

    private func finish() -> HTTPResponse {
        state.withLock { state -> HTTPResponse in
            guard let appender = state.appender else { return Responses.error(.internal("The chunk was lost.")) }
            state.appender = nil
            do throws(HearthError) {
                let received = try appender.finish(in: store)
                guard finalize else { return answers.progress(received) }
                try finalCheck(Int(received))
                var finished = session
                finished.received = received
                return answers.stored(try store.finalize(finished))
            } catch {
                appender.discard()
                return Responses.error(error)
            }
        }
    }

    func abandon() {
        state.withLock { state in
            state.appender?.discard()
            state.appender = nil
        }
    }
}

/// The error answers only Storage gives.
enum StorageErrorResponses {
    /// 413 in the google.rpc envelope.
    static func tooLarge(_ limit: Int) -> HTTPResponse {
        var body: [UInt8] = []
        body.append(contentsOf: #"{"error":{"code":413,"message":"#.utf8)
        JSONWriter.appendString(
            "The object is larger than the maximum object size of \(limit) bytes; nothing was stored.", into: &body)
        body.append(contentsOf: #","status":"INVALID_ARGUMENT"}}"#.utf8)
        return Responses.json(body, status: 413)
    }
}

/// The header-only answers of the resumable protocol.
enum ResumableResponses {
    /// The session continues with `received` bytes stored.
    static func active(received: Int64) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [("X-Goog-Upload-Status", "active"), ("X-Goog-Upload-Size-Received", String(received))])
    }
}
