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
    /// A chunk sent after the first number of bytes, refused because the session has the second: where to resume.
    var moved: @Sendable (_ sent: Int64, _ received: Int64) -> HTTPResponse

    /// Firebase Storage v0: the metadata JSON (`X-Goog-Upload-Status: final` after a resumable upload), and
    /// `X-Goog-Upload-Status: active` with `X-Goog-Upload-Size-Received`.
    static let firebase = UploadAnswers(
        stored: { StorageJSON.response($0, headers: [("X-Goog-Upload-Status", "final")]) },
        progress: { ResumableResponses.active(received: $0) },
        moved: { ResumableResponses.wrongOffset(sent: String($0), received: $1) })
}

/// An upload in one request — media (the body is the file) or multipart (a metadata part, then the file) —
/// streaming into a `BlobWriter`; committed once the body ends, off the HTTP thread because the commit fsyncs the
/// whole file.
final class ObjectUploadSink: HTTPBodySink {
    /// The object an upload makes: its name and attributes.
    struct Target: Sendable {
        var name: String
        var attributes: ObjectAttributes
    }

    /// Judges an upload of `target` with this many bytes (the rules; a no-op for the admin APIs).
    typealias Judge = @Sendable (Target, Int) throws(HearthError) -> Void

    /// The judge of the admin-only APIs (the Cloud Storage JSON API), whose callers no rules bind.
    static let unjudged: Judge = { _, _ throws(HearthError) in }

    private struct State {
        var writer: BlobWriter?
        var failure: HearthError?
        /// Known from the start for a media upload; from the metadata part for a multipart one.
        var target: Target?
        var multipart: MultipartRelated?
    }

    let maxBodyBytes: Int
    private let state: Mutex<State>
    private let store: FileStore
    private let bucket: String
    private let work: DispatchQueue
    /// Judges the upload again once its real size is known, before it commits (and a multipart upload also once
    /// its metadata part is in).
    private let judge: Judge
    private let answers: UploadAnswers
    /// A multipart upload: the head, the `?name=` fallback and the declared body length, to judge the upload from
    /// its metadata before its file arrives.
    private let request: HTTPRequest?

    /// A media upload of `target`, already judged with its declared size.
    init(
        store: FileStore, bucket: String, target: Target, work: DispatchQueue, answers: UploadAnswers = .firebase,
        judge: @escaping Judge
    ) throws(HearthError) {
        self.store = store
        self.bucket = bucket
        self.work = work
        self.judge = judge
        self.answers = answers
        request = nil
        maxBodyBytes = store.configuration.maxObjectBytes
        state = Mutex(State(writer: try store.makeWriter(), target: target))
    }

    /// A multipart upload: its target comes from the metadata part, and is judged then with the file's size as the
    /// declared length implies it.
    init(
        multipart request: HTTPRequest, store: FileStore, bucket: String, work: DispatchQueue, answers: UploadAnswers,
        judge: @escaping Judge
    ) throws(HearthError) {
        let reader = try MultipartRelated(contentType: request.headers["Content-Type"])
        self.store = store
        self.bucket = bucket
        self.work = work
        self.judge = judge
        self.answers = answers
        self.request = request
        // The file may be as large as any object; the head and the delimiters come on top.
        maxBodyBytes = store.configuration.maxObjectBytes + MultipartRelated.maxHeadBytes + 1024
        state = Mutex(State(writer: try store.makeWriter(), multipart: reader))
    }

    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            do throws(HearthError) {
                guard let writer = state.writer else { return false }
                if var reader = state.multipart {
                    // Out of the state while it reads, so its buffers are not copied on write.
                    state.multipart = nil
                    defer { state.multipart = reader }
                    try reader.read(
                        chunk,
                        head: { head throws(HearthError) in state.target = try self.judged(head) },
                        file: { bytes throws(HearthError) in try writer.write(bytes) })
                } else {
                    try writer.write(chunk)
                }
                return true
            } catch {
                state.failure = error
                state.writer?.abandon()
                state.writer = nil
                return false
            }
        }
    }

    /// The multipart upload's target, judged with the file's size as the declared length implies it. A body may end
    /// with a CRLF epilogue, so the size judged here is the smallest the file can be (two bytes short for a body
    /// without one, as Firebase's and Google's clients send it): the commit judges the real size, and a guess on
    /// the high side could refuse an upload the rules allow.
    private func judged(_ head: MultipartRelated.Head) throws(HearthError) -> Target {
        guard let request else { throw .internal("A media upload has no multipart head.") }
        let (name, attributes) = try MultipartRelated.target(head, request: request)
        let target = Target(name: name, attributes: attributes)
        let declared = request.headers["Content-Length"].flatMap(Int.init) ?? 0
        try judge(target, max(0, declared - head.fileOffset - head.closingBytes - 2))
        return target
    }

    func complete(_ outcome: HTTPBodyOutcome, request: HTTPRequest) -> HTTPReply {
        switch outcome {
        case .tooLarge:
            abandon()
            return .response(StorageErrorResponses.tooLarge(store.configuration.maxObjectBytes))
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
                try state.multipart?.finish()
                guard let target = state.target else { throw .internal("The upload has no object name.") }
                try judge(target, writer.size)
                let object = try store.commit(
                    writer, bucket: bucket, name: target.name, attributes: target.attributes)
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
                let received: Int64
                switch try appender.record(in: store) {
                case .recorded(let size): received = size
                // Another node stored a chunk at this offset first: the answer a wrong offset gets.
                case .moved(let size): return answers.moved(session.received, size)
                }
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

    /// A chunk sent at offset `sent` to a session that has `received` bytes: 400, with where to resume.
    static func wrongOffset(sent: String, received: Int64) -> HTTPResponse {
        var refused = Responses.error(
            .invalidArgument(
                "The chunk starts at byte \(sent), but the session has \(received) bytes; "
                    + "query the session and send from there."))
        refused.headers.add(name: "X-Goog-Upload-Status", value: "active")
        refused.headers.add(name: "X-Goog-Upload-Size-Received", value: String(received))
        return refused
    }
}
