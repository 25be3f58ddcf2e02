import Foundation
import HearthHTTP

/// Which of Firebase's upload protocols a `POST /v0/b/{bucket}/o` request speaks, from its headers.
enum UploadKind: Equatable {
    /// The body is the file (`X-Goog-Upload-Protocol` absent or `raw`).
    case media
    /// `multipart/related`: a JSON metadata part, then the file.
    case multipart
    /// A resumable session: `start`, `upload` (and `finalize`), `query` or `cancel`.
    case resumable(command: ResumableCommand)

    /// The commands of `X-Goog-Upload-Command`.
    struct ResumableCommand: Equatable {
        var start = false
        var upload = false
        var finalize = false
        var query = false
        var cancel = false
    }

    init(_ request: HTTPRequest) {
        let protocolName = request.headers["X-Goog-Upload-Protocol"]?.lowercased() ?? request.queryValue("uploadType")
        switch protocolName {
        case "multipart":
            self = .multipart
        case "resumable":
            var command = ResumableCommand()
            let words = (request.headers["X-Goog-Upload-Command"] ?? "").lowercased().split(separator: ",")
            for word in words.map({ $0.trimmingCharacters(in: .whitespaces) }) {
                switch word {
                case "start": command.start = true
                case "upload": command.upload = true
                case "finalize": command.finalize = true
                case "query": command.query = true
                case "cancel": command.cancel = true
                default: break
                }
            }
            self = .resumable(command: command)
        default:
            self = .media
        }
    }

    /// Whether the body is file bytes, streamed to disk rather than buffered.
    var streamsBody: Bool {
        switch self {
        case .media: true
        case .multipart: true
        case .resumable(let command): !command.start && !command.query && !command.cancel
        }
    }
}
