/// The Accounts page's sign-in methods: each way to sign in with whether it is on and its settings (client IDs;
/// a secret only by its last characters), the account settings fixed at start (shown read-only, with the flag that
/// sets them), and the authorized domains, which can be changed while the server runs. All from Identity Toolkit's
/// admin configuration (`/admin/v2/projects/{p}/config`, `…/defaultSupportedIdpConfigs`, `…/oauthIdpConfigs`), so
/// `curl` can do the same. It builds on `console.js` and `accounts.js` (loaded first).
enum ConsoleSignInMethodsScript {
    /// The JavaScript served at `/console/signin-methods.js`.
    static let source = #"""
        'use strict';
        // ── Accounts: sign-in methods and authorized domains ──
        const ADMIN_CONFIG = `/admin/v2/projects/${encodeURIComponent(project)}`;

        function methodRow(name, on, ...settings) {
          return el('tr', {}, el('th', { scope: 'row' }, name),
            el('td', { class: `state ${on ? 'ready' : 'off'}` }, on ? 'enabled' : 'not available'),
            el('td', {}, ...settings));
        }

        function providerSettings(idp) {
          const id = idp.name.slice(idp.name.lastIndexOf('/') + 1);
          const ids = idp.clientIds || (idp.clientId ? [idp.clientId] : []);
          return methodRow(id, idp.enabled,
            el('div', {}, 'Client IDs: ', ids.length ? ids.join(', ') : '—'),
            idp.clientSecret ? el('div', {}, 'Client secret: ', el('code', { class: 'secret' }, idp.clientSecret)) : null,
            idp.issuer ? el('div', {}, 'Issuer: ', idp.issuer) : null);
        }

        async function signInMethodsColumn() {
          const [config, builtIn, oidc] = await Promise.all([api('GET', `${ADMIN_CONFIG}/config`),
            api('GET', `${ADMIN_CONFIG}/defaultSupportedIdpConfigs`), api('GET', `${ADMIN_CONFIG}/oauthIdpConfigs`)]);
          const signIn = (config && config.signIn) || {};
          const idps = ((builtIn && builtIn.defaultSupportedIdpConfigs) || [])
            .concat((oidc && oidc.oauthIdpConfigs) || []);
          const header = el('tr', {}, ...['Method', 'Status', 'Settings'].map((t) => el('th', { scope: 'col' }, t)));
          const methods = el('table', { class: 'grid', id: 'sign-in-method-list' }, el('thead', {}, header),
            el('tbody', {},
              methodRow('Email/password', signIn.email && signIn.email.enabled, 'Always on in Hearth.'),
              methodRow('Email link (passwordless)', false, 'Hearth has no email-link sign-in.'),
              methodRow('Anonymous', signIn.anonymous && signIn.anonymous.enabled, 'Always on in Hearth.'),
              methodRow('Phone', signIn.phoneNumber && signIn.phoneNumber.enabled, 'Hearth has no phone sign-in.'),
              ...idps.map(providerSettings)));
          const fixed = el('ul', { class: 'list', id: 'fixed-settings' },
            el('li', {}, `One account per email address: ${signIn.allowDuplicateEmails ? 'no (several allowed)' : 'yes'}`,
              el('span', { class: 'empty' }, ' — set at start with --multiple-accounts-per-email')),
            el('li', {}, 'Email enumeration protection: '
              + `${config.emailPrivacyConfig && config.emailPrivacyConfig.enableImprovedEmailPrivacy ? 'on' : 'off'}`,
              el('span', { class: 'empty' }, ' — set at start with --email-enumeration-protection')));
          return el('div', { class: 'column wide', id: 'sign-in-methods' }, el('h2', {}, 'Sign-in methods'), methods,
            el('p', { class: 'empty' }, idps.length ? 'Identity providers are set when the server starts (--providers '
              + 'or the config file\'s "providers"); they are shown here read-only.'
              : 'No identity providers: they are set when the server starts (--providers or the config file\'s '
              + '"providers").'), fixed, authorizedDomains(config));
        }

        // The listed domains can be changed here (until the server restarts, which goes back to
        // --authorized-domains); the implied ones (the public URL's host; localhost in development mode) cannot.
        function authorizedDomains(config, section = el('section', { id: 'authorized-domains' })) {
          const implied = (config && config.impliedAuthorizedDomains) || [];
          const listed = ((config && config.authorizedDomains) || []).filter((host) => !implied.includes(host));
          const error = el('p', { class: 'field-error', role: 'alert', id: 'domain-error' });
          error.hidden = true;
          async function save(hosts) {
            error.hidden = true;
            try {
              const answer = await api('PATCH', `${ADMIN_CONFIG}/config?updateMask=authorizedDomains`,
                { authorizedDomains: hosts });
              authorizedDomains(answer, section);
              document.getElementById('new-domain').focus();
            } catch (failure) {
              error.textContent = failure.message;
              error.hidden = false;
            }
          }
          const items = listed.map((host) => el('li', { 'data-domain': host }, host, ' ',
            el('button', { class: 'danger', 'aria-label': `remove ${host}`,
              onclick: guarded(() => save(listed.filter((other) => other !== host))) }, 'Remove')))
            .concat(implied.map((host) => el('li', { 'data-domain': host }, host,
              el('span', { class: 'empty' }, ' (always authorized here)'))));
          const input = el('input', { name: 'domain', id: 'new-domain', placeholder: 'app.example.com',
            autocomplete: 'off', 'aria-describedby': 'domain-error' });
          const form = el('form', { class: 'inline', id: 'add-domain', onsubmit: guarded(() =>
            save(listed.concat([input.value.trim()]))) }, input, el('button', { type: 'submit' }, 'Add domain'), error);
          fill(section, el('h3', {}, 'Authorized domains'),
            el('p', { class: 'empty' }, 'Where links in mail may send people (continueUrl). Changes apply at once and '
              + 'last until the server restarts; --authorized-domains sets them at start.'),
            items.length ? el('ul', { class: 'list' }, ...items) : el('p', { class: 'empty' }, 'None.'), form);
          return section;
        }
        """#
}
