import HearthCore
import HearthHTTP

/// The web console at `/console`: static HTML, CSS and JavaScript built into the binary, which talk to Hearth's
/// public APIs from the browser — so everything the console does can also be done with `curl`.
///
/// This first version is served in development mode only, where those APIs are open to the page (the admin
/// credential `owner`); outside it the console answers 403 until its admin sign-in exists.
struct ConsoleAPI: API {
    let configuration: ServerConfiguration

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        guard request.path == "/console" || request.path.hasPrefix("/console/") else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            return ("console", .response(Responses.error(HearthError(.unimplemented, "The console serves only GET."))))
        }
        guard configuration.devMode else {
            return (
                "console",
                .response(
                    Responses.error(
                        HearthError(
                            .permissionDenied,
                            "The console is served only with --dev in this version (its admin sign-in is not built yet)."
                        )))
            )
        }
        switch request.path {
        case "/console", "/console/", "/console/index.html":
            return ("console", .response(Self.asset(ConsolePage.html(projectID: configuration.projectID), "text/html")))
        case "/console/console.js":
            return ("console", .response(Self.asset(ConsoleScript.source, "text/javascript")))
        case "/console/console.css":
            return ("console", .response(Self.asset(ConsoleStyle.source, "text/css")))
        default:
            return ("console", .response(Responses.error(.notFound("No console page at \(request.path.prefix(200))."))))
        }
    }

    /// A console file with the headers that keep it to itself: no script, style or connection from another origin,
    /// no framing, no content sniffing. Document data is only ever set as text by the script, never as HTML.
    static func asset(_ text: String, _ type: String) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "\(type); charset=utf-8"),
                (
                    "Content-Security-Policy",
                    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
                        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
                ),
                ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
                ("Cache-Control", "no-cache"),
            ],
            body: Array(text.utf8))
    }
}

/// The console's one HTML page.
enum ConsolePage {
    /// The page for `projectID`, which the script reads from a `<meta>` tag.
    static func html(projectID: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="hearth-project" content="\(projectID.htmlEscaped)">
        <title>Hearth console</title>
        <link rel="stylesheet" href="/console/console.css">
        <script src="/console/console.js" defer></script>
        </head>
        <body>
        <header>
          <strong>Hearth</strong> <span id="project"></span>
          <nav role="tablist">
            <button role="tab" id="tab-documents" aria-selected="true">Documents</button>
            <button role="tab" id="tab-tree">Tree</button>
          </nav>
          <span id="live" title="live updates">○</span>
        </header>
        <p id="error" role="alert" hidden></p>
        <main>
          <section id="documents-view"></section>
          <section id="tree-view" hidden></section>
        </main>
        </body>
        </html>
        """
    }
}
