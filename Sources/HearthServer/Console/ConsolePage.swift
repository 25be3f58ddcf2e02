/// The console's two HTML pages: the console itself and, outside development mode without a session, its sign-in.
enum ConsolePage {
    /// The console for `projectID`, which the scripts read from `<meta>` tags, as is the session's CSRF token
    /// (`nil` in development mode, where the page calls the APIs as `owner`).
    static func html(projectID: String, csrfToken: String?) -> String {
        let csrf = csrfToken.map { "\n<meta name=\"hearth-csrf\" content=\"\($0.htmlEscaped)\">" } ?? ""
        let scripts = ConsoleScripts.all.map { "<script src=\"\($0.path)\" defer></script>" }.joined(separator: "\n")
        let signOut = csrfToken == nil ? "" : "\n  <button id=\"sign-out\" type=\"button\">Sign out</button>"
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="hearth-project" content="\(projectID.htmlEscaped)">\(csrf)
            <title>Hearth console</title>
            <link rel="stylesheet" href="/console/console.css">
            \(scripts)
            </head>
            <body>
            <header>
              <strong>Hearth</strong> <span id="project"></span>
              <nav role="tablist">
                <button role="tab" id="tab-documents" aria-selected="true">Documents</button>
                <button role="tab" id="tab-tree">Tree</button>
                <button role="tab" id="tab-accounts">Accounts</button>
                <button role="tab" id="tab-rules">Rules</button>
                <button role="tab" id="tab-indexes">Indexes</button>
                <button role="tab" id="tab-health">Health</button>
              </nav>
              <span id="live" title="live updates">○</span>\(signOut)
            </header>
            <p id="error" role="alert" hidden></p>
            <main>
              <section id="documents-view"></section>
              <section id="tree-view" hidden></section>
              <section id="accounts-view" class="accounts" hidden></section>
              <section id="rules-view" hidden></section>
              <section id="indexes-view" hidden></section>
              <section id="health-view" hidden></section>
            </main>
            </body>
            </html>
            """
    }

    /// The sign-in page: one field for the admin key. It holds no data; its script posts the key to
    /// `/console/session` and reloads into the console.
    static func signIn(projectID: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Sign in · Hearth console</title>
        <link rel="stylesheet" href="/console/console.css">
        <script src="/console/signin.js" defer></script>
        </head>
        <body>
        <header><strong>Hearth</strong> <span>\(projectID.htmlEscaped)</span></header>
        <main>
          <form id="sign-in" class="sign-in column">
            <h2>Sign in to the console</h2>
            <label for="admin-key">Admin key (the server's <code>HEARTH_ADMIN_KEY</code>)</label>
            <input id="admin-key" name="adminKey" type="password" autocomplete="current-password" required autofocus>
            <button type="submit">Sign in</button>
            <p id="error" role="alert" hidden></p>
          </form>
        </main>
        </body>
        </html>
        """
    }
}
