/// The console's Indexes page: the composite indexes declared (building, with its progress read again every second,
/// or ready) and the ones refused queries
/// asked for, each with the `firestore.indexes.json` entry to declare it — from Firestore's Admin API list of
/// indexes, which Hearth extends with `missingIndexes`. It builds on `console.js` (loaded first).
enum ConsoleIndexesScript {
    /// The JavaScript served at `/console/indexes.js`.
    static let source = #"""
        'use strict';
        // ── Indexes: declared, building, ready, missing ──
        const indexesView = document.getElementById('indexes-view');

        function indexFields(index) {
          return (index.fields || []).map((field) => `${field.fieldPath} ${field.arrayConfig ? 'array-contains'
            : (field.order || 'ASCENDING').toLowerCase()}`).join(', ');
        }
        function definitionText(index) {
          return JSON.stringify({ collectionGroup: index.collectionGroup, queryScope: index.queryScope,
            fields: index.fields });
        }

        // A building index's progress, from `progressDocuments` (Firestore's index-operation shape).
        function buildState(index) {
          if (index.state === 'READY') return 'ready';
          const progress = index.progressDocuments || {};
          const done = Number(progress.completedWork || 0);
          if (progress.estimatedWork === undefined) return el('span', {}, 'building');
          const total = Number(progress.estimatedWork);
          const percent = total ? Math.floor((100 * done) / total) : 100;
          return el('span', { class: 'progress' }, `building: ${done.toLocaleString('en')} of `
            + `${total.toLocaleString('en')} documents (${percent}%)`,
            el('progress', { max: String(total || 1), value: String(done), 'aria-label': 'documents indexed' }));
        }

        // While an index builds and the page is open, it is read again every second.
        let indexesRefresh = 0;
        async function renderIndexes() {
          clearTimeout(indexesRefresh);
          const answer = await api('GET', `/v1/projects/${encodeURIComponent(project)}/databases/(default)/collectionGroups/-/indexes`);
          const indexes = (answer && answer.indexes) || [];
          const missing = (answer && answer.missingIndexes) || [];
          const rows = indexes.map((index) => el('tr', { 'data-name': index.name },
            el('td', {}, index.collectionGroup), el('td', {}, indexFields(index)),
            el('td', {}, index.queryScope === 'COLLECTION_GROUP' ? 'collection group' : 'collection'),
            el('td', { class: `state ${index.state === 'READY' ? 'ready' : 'building'}` }, buildState(index))));
          const header = el('tr', {}, ...['Collection', 'Fields', 'Scope', 'State'].map((t) => el('th', { scope: 'col' }, t)));
          const declared = el('div', { class: 'column', id: 'declared-indexes' }, el('h2', {}, 'Composite indexes',
            el('button', { onclick: guarded(renderIndexes) }, 'Refresh')),
            rows.length ? el('table', { class: 'users' }, el('thead', {}, header), el('tbody', {}, ...rows))
              : el('p', { class: 'empty' }, 'No composite indexes. Single-field indexes are automatic.'));
          const needed = el('div', { class: 'column', id: 'missing-indexes' }, el('h2', {}, 'Asked for by refused queries'),
            missing.length ? el('ul', { class: 'list' }, ...missing.map((index) => el('li', {},
              el('div', {}, el('strong', {}, index.collectionGroup), ': ', indexFields(index)),
              el('code', { class: 'definition' }, definitionText(index)))))
              : el('p', { class: 'empty' }, DEV_MODE ? 'None: development mode answers such queries and learns their indexes (they appear above).'
                : 'None since the server started.'),
            el('p', { class: 'empty' }, 'Declare an index in the "indexes" list of hearth.indexes.json (or the file given with --indexes) and restart; `hearth indexes` prints them all.'));
          fill(indexesView, el('div', { class: 'rules' }, declared, needed));
          if (indexes.some((index) => index.state !== 'READY')) {
            indexesRefresh = setTimeout(() => { if (!indexesView.hidden) guarded(renderIndexes)(); }, 1000);
          }
        }

        TABS.indexes = renderIndexes;
        """#
}
