/// The sign-in page's script: posts the admin key to `/console/session`, which answers with the session cookie
/// (`HttpOnly`, so this script never sees it), then loads the console. The key is not kept anywhere.
enum ConsoleSignInScript {
    /// The JavaScript served at `/console/signin.js`.
    static let source = #"""
        'use strict';
        const form = document.getElementById('sign-in');
        const key = document.getElementById('admin-key');
        const error = document.getElementById('error');
        form.addEventListener('submit', async (event) => {
          event.preventDefault();
          error.hidden = true;
          try {
            const response = await fetch('/console/session', { method: 'POST', credentials: 'same-origin',
              headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ adminKey: key.value }) });
            if (response.ok) { location.assign('/console'); return; }
            let message = `${response.status}`;
            try { message = (await response.json()).error.message || message; } catch (_) { /* not JSON */ }
            throw new Error(message);
          } catch (failure) {
            error.textContent = `Sign-in failed: ${failure.message}`;
            error.hidden = false;
            key.focus();
            key.select();
          }
        });
        """#
}
