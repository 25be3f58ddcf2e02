/// The console's script: plain JavaScript, no framework and nothing loaded from elsewhere. It calls only Hearth's
/// public APIs, and puts every piece of data into the page as text (`textContent`, text nodes), never as HTML.
enum ConsoleScript {
    /// The JavaScript served at `/console/console.js`.
    static let source = #"""
        'use strict';
        const project = document.querySelector('meta[name="hearth-project"]').content;
        const ROOT = `projects/${project}/databases/(default)/documents`;
        const BASE = `/v1/${ROOT}`;
        // Signed in (outside development mode): the session cookie, which this script cannot read, plus the
        // session's CSRF token in a header stand for the admin credential. Development mode: the Admin APIs take
        // `owner`, as the emulators do.
        const CSRF = (document.querySelector('meta[name="hearth-csrf"]') || {}).content || '';
        const ADMIN = CSRF ? { 'X-Hearth-Console-CSRF': CSRF } : { Authorization: 'Bearer owner' };
        // Without a session's CSRF token the page is development mode's (the outbox, learned indexes).
        const DEV_MODE = !CSRF;

        // ── DOM: every value becomes a text node ──
        function el(tag, props = {}, ...children) {
          const node = document.createElement(tag);
          for (const [key, value] of Object.entries(props)) {
            if (key === 'class') node.className = value;
            else if (key === 'text') node.textContent = value;
            else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
            else node.setAttribute(key, value);
          }
          for (const child of children) if (child != null) node.append(child);
          return node;
        }
        function fill(node, ...children) { node.replaceChildren(...children.filter((child) => child != null)); }
        function flash(node) { node.classList.remove('changed'); void node.offsetWidth; node.classList.add('changed'); }
        function showError(error) {
          const box = document.getElementById('error');
          box.textContent = error instanceof Error ? error.message : String(error);
          box.hidden = false;
        }
        function clearError() { document.getElementById('error').hidden = true; }
        function guarded(action) {
          return async (event) => {
            // Forms are sent by the script, never by the browser; keys typed into inputs must still type.
            if (event && event.type === 'submit') event.preventDefault();
            clearError();
            try { await action(event); } catch (error) { showError(error); }
          };
        }

        // ── HTTP ──
        async function api(method, path, body, options) { return (await apiCall(method, path, body, options)).json; }
        // The call and its answer's headers (for the tree's next-page token).
        async function apiCall(method, path, body, { admin = true } = {}) {
          // With a session every call is the admin's: the live stream (which carries the cookie) is too.
          const init = { method, credentials: 'same-origin', headers: admin || CSRF ? { ...ADMIN } : {} };
          if (body !== undefined) {
            init.headers['Content-Type'] = 'application/json';
            init.body = JSON.stringify(body);
          }
          const response = await fetch(path, init);
          const text = await response.text();
          let json = null;
          try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
          if (!response.ok) {
            // The session expired or was ended elsewhere: back to the sign-in page.
            if (response.status === 401 && CSRF) { location.assign('/console'); }
            const error = json && json.error;
            const message = typeof error === 'string' ? error : (error && error.message) || `${response.status}`;
            throw new Error(`${method} failed: ${message}`);
          }
          return { json, headers: response.headers };
        }
        const encode = (path) => path.split('/').filter((s) => s !== '').map(encodeURIComponent).join('/');
        const lastSegment = (name) => name.slice(name.lastIndexOf('/') + 1);

        // ── Firestore values ──
        const TYPES = ['string', 'integer', 'double', 'boolean', 'null', 'timestamp', 'geopoint', 'reference', 'bytes',
          'map', 'array'];
        function typeOf(value) { return Object.keys(value)[0].replace('Value', '').replace('geoPoint', 'geopoint'); }
        function plain(value) {
          const type = typeOf(value);
          switch (type) {
            case 'string': return value.stringValue;
            case 'integer': return Number(value.integerValue);
            case 'double': return value.doubleValue;
            case 'boolean': return value.booleanValue;
            case 'null': return null;
            case 'map': return Object.fromEntries(
              Object.entries((value.mapValue && value.mapValue.fields) || {}).map(([k, v]) => [k, plain(v)]));
            case 'array': return ((value.arrayValue && value.arrayValue.values) || []).map(plain);
            default: return display(value);
          }
        }
        function display(value) {
          const type = typeOf(value);
          switch (type) {
            case 'string': return value.stringValue;
            case 'integer': return value.integerValue;
            case 'double': return String(value.doubleValue);
            case 'boolean': return String(value.booleanValue);
            case 'null': return 'null';
            case 'timestamp': return value.timestampValue;
            case 'geopoint': return `${value.geoPointValue.latitude || 0}, ${value.geoPointValue.longitude || 0}`;
            case 'reference': return value.referenceValue.startsWith(ROOT + '/')
              ? value.referenceValue.slice(ROOT.length + 1) : value.referenceValue;
            case 'bytes': return value.bytesValue;
            default: return JSON.stringify(plain(value));
          }
        }
        function fromPlain(js) {
          if (js === null) return { nullValue: null };
          if (typeof js === 'boolean') return { booleanValue: js };
          if (typeof js === 'number') return Number.isInteger(js) ? { integerValue: String(js) } : { doubleValue: js };
          if (typeof js === 'string') return { stringValue: js };
          if (Array.isArray(js)) return { arrayValue: { values: js.map(fromPlain) } };
          return { mapValue: { fields: Object.fromEntries(Object.entries(js).map(([k, v]) => [k, fromPlain(v)])) } };
        }
        function fromInput(type, text) {
          switch (type) {
            case 'string': return { stringValue: text };
            case 'integer':
              if (!/^-?\d+$/.test(text.trim())) throw new Error('An integer is digits, with an optional minus sign.');
              return { integerValue: text.trim() };
            case 'double': {
              const number = Number(text);
              if (text.trim() === '' || (Number.isNaN(number) && text.trim() !== 'NaN')) throw new Error('Not a number.');
              return { doubleValue: text.trim() === 'NaN' ? 'NaN' : number };
            }
            case 'boolean':
              if (text !== 'true' && text !== 'false') throw new Error('A boolean is true or false.');
              return { booleanValue: text === 'true' };
            case 'null': return { nullValue: null };
            case 'timestamp': {
              const date = new Date(text);
              if (Number.isNaN(date.getTime())) throw new Error('A timestamp such as 2026-12-01T10:00:00Z.');
              return { timestampValue: /T.*(Z|[+-]\d\d:\d\d)$/.test(text) ? text : date.toISOString() };
            }
            case 'geopoint': {
              const parts = text.split(',').map((p) => Number(p.trim()));
              if (parts.length !== 2 || parts.some(Number.isNaN)) throw new Error('A geopoint is "latitude, longitude".');
              return { geoPointValue: { latitude: parts[0], longitude: parts[1] } };
            }
            case 'reference': return { referenceValue: `${ROOT}/${text.replace(/^\/+/, '')}` };
            case 'bytes': return { bytesValue: text.trim() };
            case 'map': case 'array': {
              let parsed;
              try { parsed = JSON.parse(text); } catch (_) { throw new Error(`A ${type} is written as JSON.`); }
              const value = fromPlain(parsed);
              if (typeOf(value) !== type) throw new Error(`That JSON is not a ${type}.`);
              return value;
            }
          }
          throw new Error(`Unknown type ${type}.`);
        }
        function quoteField(name) {
          return /^[A-Za-z_][A-Za-z_0-9]*$/.test(name) ? name : '`' + name.replace(/[\\`]/g, (c) => '\\' + c) + '`';
        }

        // ── Documents: collections | documents | document, live through documents:listen ──
        const docs = { parent: '', collection: null, selected: null, documents: new Map(), nextPage: null,
          session: null, target: 0, stream: null };
        const documentsView = document.getElementById('documents-view');

        function documentURL(path) { return `${BASE}/${encode(path)}`; }
        function collectionPath() { return docs.parent ? `${docs.parent}/${docs.collection}` : docs.collection; }

        async function listCollections(parent) {
          const url = parent ? `${documentURL(parent)}:listCollectionIds` : `${BASE}:listCollectionIds`;
          const answer = await api('POST', url, { pageSize: 300 });
          return (answer && answer.collectionIds) || [];
        }

        function selectable(text, selected, action) {
          const item = el('li', { tabindex: '0', role: 'option', 'aria-selected': selected ? 'true' : 'false' }, text);
          item.addEventListener('click', guarded(action));
          item.addEventListener('keydown', (event) => { if (event.key === 'Enter') guarded(action)(event); });
          return item;
        }

        function pathBar() {
          const bar = el('div', { class: 'path' }, el('button', { onclick: guarded(() => openParent('')) }, '/'));
          const segments = docs.parent ? docs.parent.split('/') : [];
          segments.forEach((segment, index) => {
            const upTo = segments.slice(0, index + 1).join('/');
            bar.append(' ', index % 2 === 0 ? el('span', {}, segment)
              : el('button', { onclick: guarded(() => openParent(upTo)) }, segment), ' /');
          });
          return bar;
        }

        async function renderDocuments() {
          const collections = await listCollections(docs.parent);
          const first = el('div', { class: 'column', id: 'collections' },
            el('h2', {}, docs.parent ? `Collections of ${lastSegment(docs.parent)}` : 'Collections'),
            collectionsList(collections), startCollectionForm());
          const second = el('div', { class: 'column', id: 'documents' });
          const third = el('div', { class: 'column', id: 'document' });
          fill(documentsView, pathBar(), el('div', { class: 'columns' }, first, second, third));
          renderDocumentList();
          await renderDocument();
        }

        function collectionsList(collections) {
          if (collections.length === 0) return el('p', { class: 'empty' }, 'No collections yet.');
          return el('ul', { class: 'list', role: 'listbox' },
            ...collections.map((id) => selectable(id, id === docs.collection, () => openCollection(id))));
        }

        function startCollectionForm() {
          const collection = el('input', { name: 'collection', placeholder: 'collection ID', required: '' });
          const id = el('input', { name: 'documentId', placeholder: 'document ID (empty: automatic)' });
          return el('form', { class: 'inline', id: 'start-collection', onsubmit: guarded(async () => {
            const path = docs.parent ? `${docs.parent}/${collection.value}` : collection.value;
            const created = await createDocument(path, id.value);
            docs.collection = collection.value;
            docs.selected = lastSegment(created.name);
            await loadDocuments();
            await renderDocuments();
          }) }, collection, id, el('button', { type: 'submit' }, 'Start collection'));
        }

        async function createDocument(collectionPath, id) {
          const query = id ? `?documentId=${encodeURIComponent(id)}` : '';
          return api('POST', `${documentURL(collectionPath)}${query}`, { fields: {} });
        }

        async function openParent(parent) {
          docs.parent = parent;
          docs.collection = null;
          docs.selected = null;
          docs.documents = new Map();
          listenToCollection();
          await renderDocuments();
        }

        async function openCollection(id) {
          docs.collection = id;
          docs.selected = null;
          await loadDocuments();
          listenToCollection();
          await renderDocuments();
        }

        async function loadDocuments(pageToken) {
          const page = pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : '';
          const answer = await api('GET', `${documentURL(collectionPath())}?pageSize=100${page}`);
          if (!pageToken) docs.documents = new Map();
          for (const doc of (answer && answer.documents) || []) docs.documents.set(lastSegment(doc.name), doc);
          docs.nextPage = (answer && answer.nextPageToken) || null;
        }

        function renderDocumentList() {
          const column = document.getElementById('documents');
          if (!column) return;
          if (!docs.collection) {
            fill(column, el('h2', {}, 'Documents'), el('p', { class: 'empty' }, 'Choose a collection.'));
            return;
          }
          const ids = [...docs.documents.keys()].sort();
          const list = el('ul', { class: 'list', role: 'listbox' },
            ...ids.map((id) => {
              const item = selectable(id, id === docs.selected, () => openDocument(id));
              item.dataset.id = id;
              return item;
            }));
          const more = docs.nextPage ? el('button', { onclick: guarded(async () => {
            await loadDocuments(docs.nextPage);
            renderDocumentList();
          }) }, 'More') : null;
          const id = el('input', { name: 'documentId', placeholder: 'document ID (empty: automatic)' });
          const add = el('form', { class: 'inline', id: 'add-document', onsubmit: guarded(async () => {
            const created = await createDocument(collectionPath(), id.value);
            docs.documents.set(lastSegment(created.name), created);
            docs.selected = lastSegment(created.name);
            renderDocumentList();
            await renderDocument();
          }) }, id, el('button', { type: 'submit' }, 'Add document'));
          fill(column, el('h2', {}, docs.collection), ids.length ? list : el('p', { class: 'empty' },
            'No documents.'), more, add, queryForm());
        }

        async function openDocument(id) {
          docs.selected = id;
          renderDocumentList();
          await renderDocument();
        }

        async function renderDocument() {
          const column = document.getElementById('document');
          if (!column) return;
          const doc = docs.selected && docs.documents.get(docs.selected);
          if (!doc) {
            fill(column, el('h2', {}, 'Document'), el('p', { class: 'empty' }, 'Choose a document.'));
            return;
          }
          const path = `${collectionPath()}/${docs.selected}`;
          const rows = Object.entries(doc.fields || {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(
            ([name, value]) => el('tr', { 'data-field': name },
              el('td', {}, name), el('td', { class: 'type' }, typeOf(value)), el('td', { class: 'value' }, display(value)),
              el('td', {}, el('button', { class: 'danger', 'aria-label': `delete field ${name}`,
                onclick: guarded(() => patchField(path, name, null)) }, '×'))));
          const name = el('input', { name: 'field', placeholder: 'field', required: '' });
          const type = el('select', { name: 'type' }, ...TYPES.map((t) => el('option', { value: t }, t)));
          const value = el('input', { name: 'value', placeholder: 'value' });
          const addField = el('form', { class: 'inline', id: 'add-field', onsubmit: guarded(async () => {
            await patchField(path, name.value, fromInput(type.value, value.value));
          }) }, name, type, value, el('button', { type: 'submit' }, 'Set field'));
          const subcollections = await listCollections(path);
          const sub = subcollections.length ? el('ul', { class: 'list' }, ...subcollections.map((id) =>
            selectable(`${id} (subcollection)`, false, async () => {
              docs.parent = path;
              await openCollection(id);
            }))) : null;
          fill(column,
            el('h2', {}, docs.selected, el('button', { class: 'danger', id: 'delete-document',
              onclick: guarded(() => deleteDocument(path)) }, 'Delete document')),
            rows.length ? el('table', { class: 'fields' }, el('tbody', {}, ...rows)) : el('p', { class: 'empty' },
              'No fields.'), addField, sub);
        }

        async function patchField(path, name, value) {
          const fields = value === null ? {} : { [name]: value };
          const mask = `updateMask.fieldPaths=${encodeURIComponent(quoteField(name))}`;
          const updated = await api('PATCH', `${documentURL(path)}?${mask}`, { fields });
          docs.documents.set(lastSegment(updated.name), updated);
          await renderDocument();
        }

        async function deleteDocument(path) {
          await api('DELETE', documentURL(path));
          docs.documents.delete(lastSegment(path));
          docs.selected = null;
          renderDocumentList();
          await renderDocument();
        }

        // A query on the open collection: filters (ANDed), an order and a limit, answered with Firestore's explain
        // metrics.
        const OPERATORS = [['==', 'EQUAL'], ['!=', 'NOT_EQUAL'], ['<', 'LESS_THAN'], ['<=', 'LESS_THAN_OR_EQUAL'],
          ['>', 'GREATER_THAN'], ['>=', 'GREATER_THAN_OR_EQUAL'], ['array-contains', 'ARRAY_CONTAINS'],
          ['in', 'IN'], ['not-in', 'NOT_IN'], ['array-contains-any', 'ARRAY_CONTAINS_ANY']];
        function filterRow() {
          const field = el('input', { name: 'where', placeholder: 'filter field' });
          const op = el('select', { name: 'op' }, ...OPERATORS.map(([label, name]) => el('option', { value: name }, label)));
          const type = el('select', { name: 'type' }, ...TYPES.map((t) => el('option', { value: t }, t)));
          const value = el('input', { name: 'value', placeholder: 'value (lists: JSON array)' });
          const row = el('span', { class: 'filter' }, field, op, type, value);
          row.filter = () => {
            if (!field.value) return null;
            const list = ['IN', 'NOT_IN', 'ARRAY_CONTAINS_ANY'].includes(op.value);
            return { fieldFilter: { field: { fieldPath: field.value }, op: op.value,
              value: list ? fromInput('array', value.value) : fromInput(type.value, value.value) } };
          };
          return row;
        }
        function queryForm() {
          const filters = el('span', { class: 'filters' }, filterRow());
          const more = el('button', { type: 'button', name: 'addFilter',
            onclick: () => filters.append(filterRow()) }, '+ filter');
          const order = el('input', { name: 'orderBy', placeholder: 'order by field' });
          const direction = el('select', { name: 'direction' }, el('option', { value: 'ASCENDING' }, 'ascending'),
            el('option', { value: 'DESCENDING' }, 'descending'));
          const limit = el('input', { name: 'limit', placeholder: 'limit', type: 'number', min: '1' });
          const results = el('div', { id: 'query-results' });
          const form = el('form', { class: 'inline', id: 'query', onsubmit: guarded(async () => {
            const query = { from: [{ collectionId: docs.collection }] };
            const chosen = [...filters.children].map((row) => row.filter()).filter((f) => f);
            if (chosen.length === 1) query.where = chosen[0];
            if (chosen.length > 1) query.where = { compositeFilter: { op: 'AND', filters: chosen } };
            if (order.value) query.orderBy = [{ field: { fieldPath: order.value }, direction: direction.value }];
            if (limit.value) query.limit = Number(limit.value);
            const parent = docs.parent ? documentURL(docs.parent) : BASE;
            const answer = await api('POST', `${parent}:runQuery`,
              { structuredQuery: query, explainOptions: { analyze: true } });
            const found = answer.filter((item) => item.document).map((item) => item.document);
            const metrics = (answer.find((item) => item.explainMetrics) || {}).explainMetrics;
            const plan = metrics && metrics.planSummary && metrics.planSummary.indexesUsed || [];
            const stats = (metrics && metrics.executionStats) || {};
            fill(results,
              el('p', { class: 'empty' }, `${found.length} result(s); ${stats.readOperations || 0} read(s); `
                + plan.map((p) => p.plan || JSON.stringify(p)).join('; ')),
              el('ul', { class: 'list' }, ...found.map((doc) =>
                selectable(lastSegment(doc.name), false, async () => {
                  docs.documents.set(lastSegment(doc.name), doc);
                  await openDocument(lastSegment(doc.name));
                }))));
          }) }, filters, more, order, direction, limit, el('button', { type: 'submit' }, 'Run query'));
          return el('div', {}, form, results);
        }

        // One listen stream; the open collection is its one query target (its first 100 documents by name).
        function openStream() {
          const stream = new EventSource(`${BASE}:listen`);
          docs.stream = stream;
          stream.addEventListener('session', (event) => {
            docs.session = JSON.parse(event.data).session;
            docs.target = 0;
            document.getElementById('live').classList.add('on');
            document.getElementById('live').textContent = '●';
            listenToCollection();
          });
          stream.onmessage = (event) => applyChange(JSON.parse(event.data));
          stream.onerror = () => {
            document.getElementById('live').classList.remove('on');
            document.getElementById('live').textContent = '○';
          };
        }

        async function listenToCollection() {
          if (!docs.session) return;
          const url = `${BASE}:listen?session=${encodeURIComponent(docs.session)}`;
          try {
            // In development mode the stream (an EventSource) carries no credential, so neither do its target
            // requests: a session answers only the caller who opened it. Signed in, both carry the cookie.
            const anonymous = { admin: false };
            if (docs.target) await api('POST', url, { removeTarget: docs.target }, anonymous);
            docs.target = 0;
            if (!docs.collection) return;
            const target = Math.floor(Math.random() * 1e9) + 1;
            docs.target = target;
            await api('POST', url, { addTarget: { targetId: target, query: {
              parent: docs.parent ? `${ROOT}/${docs.parent}` : ROOT,
              structuredQuery: { from: [{ collectionId: docs.collection }],
                orderBy: [{ field: { fieldPath: '__name__' }, direction: 'ASCENDING' }], limit: 100 } } } }, anonymous);
          } catch (error) { showError(error); }
        }

        function inOpenCollection(name) {
          const prefix = `${ROOT}/${collectionPath()}/`;
          return docs.collection && name.startsWith(prefix) && !name.slice(prefix.length).includes('/');
        }

        function applyChange(message) {
          const change = message.documentChange;
          const gone = message.documentDelete || message.documentRemove;
          if (change && inOpenCollection(change.document.name)) {
            const id = lastSegment(change.document.name);
            const known = docs.documents.get(id);
            // The target's first results repeat what the page already read: nothing changed, nothing to show.
            if (known && known.updateTime === change.document.updateTime) return;
            docs.documents.set(id, change.document);
            renderDocumentList();
            const row = document.querySelector(`#documents li[data-id="${CSS.escape(id)}"]`);
            if (row) flash(row);
            if (id === docs.selected) renderDocument().then(() => {
              const column = document.getElementById('document');
              if (column) flash(column);
            });
          } else if (gone && inOpenCollection(gone.document)) {
            const id = lastSegment(gone.document);
            docs.documents.delete(id);
            if (id === docs.selected) docs.selected = null;
            renderDocumentList();
            renderDocument();
          } else if (message.targetChange && message.targetChange.cause) {
            showError(`Live updates stopped: ${message.targetChange.cause.message || 'the server ended them'}`);
          }
        }

        // ── Tree: expanded lazily with shallow reads ──
        const treeView = document.getElementById('tree-view');
        const treeURL = (segments) => '/' + segments.map(encodeURIComponent).join('/') + '.json';

        function parseValue(text) { try { return JSON.parse(text); } catch (_) { return text; } }

        async function renderTree() {
          const root = el('ul');
          fill(treeView, el('div', { class: 'column tree', id: 'tree' },
            el('h2', {}, 'Tree', el('button', { onclick: guarded(renderTree) }, 'Refresh')), root,
            addChildForm([], root)));
          await fillChildren([], root);
        }

        // A node's children a page at a time (Hearth's paged shallow read), so a node with 100,000 children opens
        // as fast as one with ten; "More" reads the next page.
        const TREE_PAGE = 100;
        async function fillChildren(segments, list, after) {
          const token = after ? `&pageToken=${encodeURIComponent(after)}` : '';
          const { json: value, headers } = await apiCall('GET',
            `${treeURL(segments)}?shallow=true&pageSize=${TREE_PAGE}${token}`);
          if (!after) fill(list);
          else list.querySelector(':scope > li.more')?.remove();
          if (value === null) { list.append(el('li', { class: 'empty' }, 'empty')); return; }
          if (typeof value !== 'object') { list.append(el('li', { class: 'value' }, JSON.stringify(value))); return; }
          for (const key of Object.keys(value).sort()) list.append(treeNode([...segments, key], value[key]));
          const next = headers.get('X-Hearth-Next-Page-Token');
          if (next) {
            list.append(el('li', { class: 'more' }, el('button', { onclick: guarded(() =>
              fillChildren(segments, list, decodeURIComponent(next))) }, `More (next ${TREE_PAGE})`)));
          }
        }

        function treeNode(segments, shallow) {
          const key = segments[segments.length - 1];
          const item = el('li', { 'data-path': segments.join('/') });
          // A shallow read answers `true` for every child, object or leaf: opening one tells which it is.
          const mayHaveChildren = shallow === true;
          const children = el('ul', { hidden: '' });
          const toggle = el('button', { class: 'toggle', 'aria-label': `expand ${key}`, 'aria-expanded': 'false' }, '▸');
          const valueText = el('span', { class: 'value', tabindex: '0' }, mayHaveChildren ? '' : JSON.stringify(shallow));
          const expand = guarded(async () => {
            if (toggle.getAttribute('aria-expanded') === 'true') {
              toggle.setAttribute('aria-expanded', 'false');
              toggle.textContent = '▸';
              children.hidden = true;
              return;
            }
            const value = await api('GET', `${treeURL(segments)}?shallow=true&pageSize=1`);
            if (value === null || typeof value !== 'object') {
              toggle.remove();
              valueText.textContent = JSON.stringify(value);
              return;
            }
            toggle.setAttribute('aria-expanded', 'true');
            toggle.textContent = '▾';
            children.hidden = false;
            await fillChildren(segments, children);
            if (!children.nextSibling) item.append(addChildForm(segments, children));
          });
          toggle.addEventListener('click', expand);
          const edit = guarded(async () => {
            const input = el('input', { value: valueText.textContent, 'aria-label': `value of ${key}` });
            input.addEventListener('keydown', guarded(async (event) => {
              if (event.key === 'Escape') { input.replaceWith(valueText); return; }
              if (event.key !== 'Enter') return;
              const written = await api('PUT', treeURL(segments), parseValue(input.value));
              valueText.textContent = JSON.stringify(written);
              input.replaceWith(valueText);
              flash(valueText);
            }));
            valueText.replaceWith(input);
            input.focus();
          });
          valueText.addEventListener('click', edit);
          valueText.addEventListener('keydown', (event) => { if (event.key === 'Enter') edit(event); });
          const remove = el('button', { class: 'danger', 'aria-label': `delete ${key}`, onclick: guarded(async () => {
            await api('DELETE', treeURL(segments));
            item.remove();
          }) }, '×');
          item.append(mayHaveChildren ? toggle : '', el('span', { class: 'key' }, key), ': ', valueText,
            el('span', { class: 'actions' }, remove), children);
          return item;
        }

        function addChildForm(segments, list) {
          const where = segments.length ? segments.join('/') : 'the root';
          const key = el('input', { name: 'key', placeholder: `new key in ${where}`, required: '' });
          const value = el('input', { name: 'value', placeholder: 'value (JSON or text)' });
          return el('form', { class: 'inline add-child', onsubmit: guarded(async () => {
            await api('PUT', treeURL([...segments, key.value]), parseValue(value.value));
            await fillChildren(segments, list);
            list.hidden = false;
          }) }, key, value, el('button', { type: 'submit' }, 'Add child'));
        }

        // ── Tabs and start ──
        // Each page's script adds itself here (name → render function); the tabs are the page's buttons.
        const TABS = { documents: renderDocuments, tree: renderTree };
        function showTab(name) {
          for (const tab of Object.keys(TABS)) {
            document.getElementById(`tab-${tab}`).setAttribute('aria-selected', tab === name ? 'true' : 'false');
            document.getElementById(`${tab}-view`).hidden = tab !== name;
          }
          clearError();
          return TABS[name]();
        }
        async function signOut() {
          await api('DELETE', '/console/session');
          location.assign('/console');
        }
        // Every script has run by DOMContentLoaded (they are deferred, in order), so every tab is registered.
        document.addEventListener('DOMContentLoaded', () => {
          document.getElementById('project').textContent = project;
          for (const name of Object.keys(TABS)) {
            document.getElementById(`tab-${name}`).addEventListener('click', guarded(() => showTab(name)));
          }
          const out = document.getElementById('sign-out');
          if (out) out.addEventListener('click', guarded(signOut));
          guarded(() => renderDocuments())();
          openStream();
        });
        """#
}
