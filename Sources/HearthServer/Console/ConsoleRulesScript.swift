/// The console's Rules page: the document, tree and storage rules in force, edited and deployed live (a source with
/// an error is refused and the error shown at its line and column), and a playground that judges one request —
/// against the text being edited, before it is deployed — and says which rule decided. It calls the rules
/// endpoints (`:securityRules`, `:storageRules`, `:testRules`, the tree's `/.settings/rules.json`) and builds on
/// `console.js` (loaded first).
enum ConsoleRulesScript {
    /// The JavaScript served at `/console/rules.js`.
    static let source = #"""
        'use strict';
        // ── Rules: edit, deploy, judge ──
        const RULES_BASE = `/emulator/v1/projects/${encodeURIComponent(project)}`;
        const RULE_SETS = {
          firestore: { title: 'Documents', url: `${RULES_BASE}:securityRules`, methods: ['get', 'list', 'create', 'update', 'delete'] },
          database: { title: 'Tree', url: '/.settings/rules.json', methods: ['read', 'write'] },
          storage: { title: 'Storage', url: `${RULES_BASE}:storageRules`, methods: ['get', 'list', 'create', 'update', 'delete'] },
        };
        const rulesState = { kind: 'firestore' };
        const rulesView = document.getElementById('rules-view');

        // The rules text as it is stored: the tree's rules are their own JSON text, the others come wrapped.
        async function rulesText(kind) {
          const set = RULE_SETS[kind];
          const response = await fetch(set.url, { credentials: 'same-origin', headers: { ...ADMIN } });
          const text = await response.text();
          if (!response.ok) throw new Error(`GET ${set.url} failed: ${response.status} ${text.slice(0, 200)}`);
          if (kind === 'database') return text;
          return JSON.parse(text).rules.files[0].content;
        }
        async function deployRules(kind, text) {
          const response = await fetch(RULE_SETS[kind].url, { method: 'PUT', credentials: 'same-origin',
            headers: { ...ADMIN, 'Content-Type': 'text/plain' }, body: text });
          const answer = await response.text();
          if (response.ok) return null;
          let message = answer;
          try {
            const json = JSON.parse(answer);
            message = typeof json.error === 'string' ? json.error : (json.error && json.error.message) || answer;
          } catch (_) { /* not JSON: the text itself */ }
          return message;
        }
        // `…:3:20: message` → { line: 3, column: 20 }.
        function errorPlace(message) {
          const match = /:(\d+):(\d+):/.exec(message);
          return match ? { line: Number(match[1]), column: Number(match[2]) } : null;
        }
        // Selects line `line` in the editor and scrolls to it.
        function showLine(editor, line) {
          const lines = editor.value.split('\n');
          const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
          editor.focus();
          editor.setSelectionRange(start, start + (lines[line - 1] || '').length);
          const lineHeight = editor.scrollHeight / Math.max(lines.length, 1);
          editor.scrollTop = Math.max(0, (line - 3) * lineHeight);
        }

        async function renderRules() {
          const kind = rulesState.kind;
          const tabs = el('div', { class: 'rule-kinds', role: 'tablist' }, ...Object.entries(RULE_SETS).map(([name, set]) => {
            const button = el('button', { id: `rules-${name}`, role: 'tab', 'aria-selected': name === kind ? 'true' : 'false',
              onclick: guarded(async () => { rulesState.kind = name; await renderRules(); }) }, set.title);
            return button;
          }));
          const editor = el('textarea', { id: 'rules-source', spellcheck: 'false', rows: '22', 'aria-label': 'rules source' });
          editor.value = await rulesText(kind);
          const status = el('p', { id: 'rules-status', role: 'status' });
          const deploy = el('button', { id: 'rules-deploy', onclick: guarded(async () => {
            status.className = '';
            const error = await deployRules(kind, editor.value);
            if (error) {
              const place = errorPlace(error);
              status.className = 'field-error';
              status.textContent = place ? `Not deployed — line ${place.line}, column ${place.column}: ${error}`
                : `Not deployed: ${error}`;
              if (place) showLine(editor, place.line);
              return;
            }
            status.textContent = `Deployed at ${new Date().toLocaleTimeString()}: in force for the next request.`;
          }) }, 'Deploy');
          const left = el('div', { class: 'column', id: 'rules-editor' }, el('h2', {}, `${RULE_SETS[kind].title} rules`, deploy),
            editor, status);
          fill(rulesView, tabs, el('div', { class: 'rules' }, left, playground(kind, editor)));
        }

        function playground(kind, editor) {
          const set = RULE_SETS[kind];
          const method = el('select', { name: 'method' }, ...set.methods.map((m) => el('option', { value: m }, m)));
          const path = el('input', { name: 'path', placeholder: kind === 'storage' ? 'object name, e.g. users/u1/avatar.png'
            : kind === 'database' ? 'path, e.g. posts/p1' : 'document path, e.g. todos/t1', required: '' });
          const uid = el('input', { name: 'uid', placeholder: 'auth uid (empty: signed out)' });
          const claims = el('input', { name: 'claims', placeholder: 'token claims as JSON, e.g. {"email_verified": true}' });
          const resource = el('textarea', { name: 'resource', rows: '3', placeholder: kind === 'database'
            ? 'the tree before, as JSON' : 'stored data (resource), as JSON' });
          const data = el('textarea', { name: 'data', rows: '3', placeholder: 'data written, as JSON' });
          const verdict = el('div', { id: 'rules-verdict', role: 'status' });
          function json(field, label) {
            if (!field.value.trim()) return undefined;
            try { return JSON.parse(field.value); } catch (error) { throw new Error(`${label} is not JSON: ${error.message}`); }
          }
          const form = el('form', { class: 'stacked', id: 'rules-playground', onsubmit: guarded(async () => {
            const test = { method: method.value, path: path.value };
            if (uid.value) test.auth = { uid: uid.value, token: json(claims, 'The claims') || {} };
            const before = json(resource, kind === 'database' ? 'The tree' : 'The resource');
            if (before !== undefined) test[kind === 'database' ? 'tree' : 'resource'] = before;
            const written = json(data, 'The data');
            if (written !== undefined) test.data = written;
            const answer = await api('POST', `${RULES_BASE}:testRules`, { source: editor.value, test });
            const line = answer.grantedBy ? answer.grantedBy.line
              : (answer.outcomes && answer.outcomes.length ? answer.outcomes[0].line : null);
            fill(verdict, el('strong', { class: answer.allowed ? 'allowed' : 'denied' }, answer.allowed ? 'ALLOWED' : 'DENIED'),
              ' ', answer.explanation, line ? el('button', { type: 'button', onclick: () => showLine(editor, line) },
                `show line ${line}`) : null);
          }) }, el('label', {}, 'Method', method), el('label', {}, 'Path', path), el('label', {}, 'Auth', uid, claims),
            el('label', {}, 'Before', resource), el('label', {}, 'Data', data),
            el('button', { type: 'submit' }, 'Judge with the text above (not yet deployed)'), verdict);
          return el('div', { class: 'column', id: 'rules-playground-column' }, el('h2', {}, 'Playground'), form);
        }

        TABS.rules = renderRules;
        """#
}
