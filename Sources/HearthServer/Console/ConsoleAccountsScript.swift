/// The console's Accounts page: the project's users through Identity Toolkit's admin calls (list with paging, look
/// up by email or UID, create, disable and enable, delete, custom claims, verification and reset mail) and, in
/// development mode, the outbox of codes the server has mailed; then the sign-in methods (`signin-methods.js`). It
/// builds on `console.js` (loaded first) and, like it, puts every value into the page as text.
enum ConsoleAccountsScript {
    /// The JavaScript served at `/console/accounts.js`.
    static let source = #"""
        'use strict';
        // ── Accounts: Identity Toolkit's admin calls, the same `curl` would make ──
        const ACCOUNTS = `/identitytoolkit.googleapis.com/v1/projects/${encodeURIComponent(project)}`;
        const PAGE_SIZE = 25;
        const accounts = { users: [], pageTokens: [''], page: 0, nextPageToken: null, search: '' };
        const accountsView = document.getElementById('accounts-view');

        function accountsCall(verb, body) { return api('POST', `${ACCOUNTS}/accounts:${verb}`, body); }

        async function loadUsers() {
          if (accounts.search) {
            const term = accounts.search.trim();
            const answer = await accountsCall('lookup', term.includes('@') ? { email: [term] } : { localId: [term] });
            accounts.users = (answer && answer.users) || [];
            accounts.nextPageToken = null;
            return;
          }
          const token = accounts.pageTokens[accounts.page];
          const query = `maxResults=${PAGE_SIZE}` + (token ? `&nextPageToken=${encodeURIComponent(token)}` : '');
          const answer = await api('GET', `${ACCOUNTS}/accounts:batchGet?${query}`);
          accounts.users = (answer && answer.users) || [];
          accounts.nextPageToken = (answer && answer.nextPageToken) || null;
        }

        function when(millis) {
          if (!millis) return '—';
          const date = new Date(Number(millis));
          return Number.isNaN(date.getTime()) ? '—' : date.toISOString().replace('T', ' ').slice(0, 16) + 'Z';
        }

        function providersOf(user) {
          const ids = (user.providerUserInfo || []).map((info) => info.providerId);
          return ids.length ? ids.join(', ') : 'anonymous';
        }

        async function renderAccounts() {
          await loadUsers();
          const search = el('input', { name: 'search', type: 'search', placeholder: 'email or UID', value: accounts.search });
          const searchForm = el('form', { class: 'inline', id: 'search-users', onsubmit: guarded(async () => {
            accounts.search = search.value;
            await renderAccounts();
          }) }, search, el('button', { type: 'submit' }, 'Find'),
            accounts.search ? el('button', { type: 'button', onclick: guarded(async () => {
              accounts.search = '';
              await renderAccounts();
            }) }, 'Show all') : null);
          const header = el('tr', {}, ...['Email', 'UID', 'Providers', 'Created', 'Last sign-in', 'Verified',
            'Disabled', ''].map((title) => el('th', { scope: 'col' }, title)));
          const rows = accounts.users.map(userRow);
          const table = rows.length
            ? el('table', { class: 'users' }, el('thead', {}, header), el('tbody', {}, ...rows))
            : el('p', { class: 'empty' }, accounts.search ? 'No user matches.' : 'No users yet.');
          const previous = el('button', { id: 'users-previous', onclick: guarded(async () => {
            accounts.page -= 1;
            await renderAccounts();
          }) }, 'Previous');
          previous.disabled = accounts.page === 0;
          const next = el('button', { id: 'users-next', onclick: guarded(async () => {
            accounts.pageTokens[accounts.page + 1] = accounts.nextPageToken;
            accounts.page += 1;
            await renderAccounts();
          }) }, 'Next');
          next.disabled = !accounts.nextPageToken;
          const paging = accounts.search ? null
            : el('div', { class: 'paging' }, previous, el('span', {}, `Page ${accounts.page + 1}`), next);
          const usersColumn = el('div', { class: 'column wide', id: 'users' }, el('h2', {}, 'Users'), searchForm,
            table, paging, addUserForm());
          const outbox = DEV_MODE ? await outboxColumn() : null;
          fill(accountsView, usersColumn, el('div', { id: 'user-detail' }), outbox, await signInMethodsColumn());
        }

        function userRow(user) {
          const row = el('tr', { 'data-uid': user.localId },
            el('td', {}, user.email || '—'), el('td', { class: 'uid' }, user.localId),
            el('td', {}, providersOf(user)), el('td', { class: 'when' }, when(user.createdAt)),
            el('td', { class: 'when' }, when(user.lastLoginAt)),
            el('td', {}, user.emailVerified ? 'yes' : 'no'), el('td', { class: 'disabled' }, user.disabled ? 'yes' : 'no'),
            el('td', { class: 'actions' },
              el('button', { class: 'toggle-disabled', onclick: guarded(async () => {
                await accountsCall('update', { localId: user.localId, disableUser: !user.disabled });
                await renderAccounts();
              }) }, user.disabled ? 'Enable' : 'Disable'),
              el('button', { onclick: guarded(() => showUser(user)) }, 'Details'),
              el('button', { class: 'danger', 'aria-label': `delete ${user.email || user.localId}`,
                onclick: guarded(async () => {
                  if (!confirm(`Delete ${user.email || user.localId}? This cannot be undone.`)) return;
                  await accountsCall('delete', { localId: user.localId });
                  await renderAccounts();
                }) }, 'Delete')));
          return row;
        }

        // One user: custom claims to edit, mail to send.
        function showUser(user) {
          const detail = document.getElementById('user-detail');
          const claims = el('textarea', { name: 'claims', rows: '4', spellcheck: 'false' });
          claims.value = user.customAttributes || '{}';
          const claimsError = el('p', { class: 'field-error', role: 'alert' });
          claimsError.hidden = true;
          const saveClaims = el('form', { class: 'stacked', id: 'claims-form', onsubmit: guarded(async () => {
            claimsError.hidden = true;
            try { JSON.parse(claims.value); } catch (error) {
              claimsError.textContent = `Not JSON: ${error.message}`;
              claimsError.hidden = false;
              return;
            }
            await accountsCall('update', { localId: user.localId, customAttributes: claims.value });
            await renderAccounts();
          }) }, el('label', {}, 'Custom claims (JSON, in every ID token as claims)', claims), claimsError,
            el('button', { type: 'submit' }, 'Save claims'));
          const sent = el('p', { class: 'sent', role: 'status' });
          async function mail(requestType, label) {
            await accountsCall('sendOobCode', { requestType, email: user.email });
            sent.textContent = `${label} sent to ${user.email}.`;
          }
          const mailButtons = user.email ? el('div', { class: 'mail' },
            el('button', { id: 'send-verification', onclick: guarded(() => mail('VERIFY_EMAIL', 'Verification mail')) },
              'Send verification mail'),
            el('button', { id: 'send-reset', onclick: guarded(() => mail('PASSWORD_RESET', 'Password reset mail')) },
              'Send password reset mail'), sent) : el('p', { class: 'empty' }, 'No email address: no mail to send.');
          fill(detail, el('div', { class: 'column' }, el('h2', {}, user.email || user.localId), saveClaims,
            mailButtons));
        }

        function addUserForm() {
          const email = el('input', { name: 'email', type: 'email', placeholder: 'email', autocomplete: 'off' });
          const password = el('input', { name: 'password', type: 'password', placeholder: 'password (6+ characters)',
            autocomplete: 'new-password' });
          const name = el('input', { name: 'displayName', placeholder: 'display name', autocomplete: 'off' });
          return el('form', { class: 'inline', id: 'add-user', onsubmit: guarded(async () => {
            const body = {};
            if (email.value) body.email = email.value;
            if (password.value) body.password = password.value;
            if (name.value) body.displayName = name.value;
            await api('POST', `${ACCOUNTS}/accounts`, body);
            accounts.search = '';
            await renderAccounts();
          }) }, email, password, name, el('button', { type: 'submit' }, 'Add user'));
        }

        // Development mode: every code the server mailed, newest last, with its link.
        async function outboxColumn() {
          const answer = await api('GET', `/emulator/v1/projects/${encodeURIComponent(project)}/oobCodes`);
          const codes = (answer && answer.oobCodes) || [];
          const list = codes.length ? el('ul', { class: 'list outbox' }, ...codes.slice().reverse().map((code) =>
            el('li', {}, el('strong', {}, code.requestType), ' to ', code.email, ' ',
              el('a', { href: code.oobLink, rel: 'noreferrer', target: '_blank' }, 'open link'))))
            : el('p', { class: 'empty' }, 'No mail sent yet.');
          return el('div', { class: 'column', id: 'outbox' }, el('h2', {}, 'Outbox (development mode)'), list);
        }

        TABS.accounts = renderAccounts;
        """#
}
