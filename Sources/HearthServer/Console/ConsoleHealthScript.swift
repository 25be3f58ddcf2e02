/// The console's Health page: `/metrics` read every two seconds while the page is open, and the last minutes of
/// requests, latency, connections, listeners, commits and database size drawn as small live charts (SVG). It
/// builds on `console.js` (loaded first).
enum ConsoleHealthScript {
    /// The JavaScript served at `/console/health.js`.
    static let source = #"""
        'use strict';
        // ── Health: charts drawn from /metrics ──
        const HEALTH_INTERVAL = 2000;
        const HEALTH_POINTS = 90; // three minutes
        const health = { samples: [], timer: null, previous: null };
        const healthView = document.getElementById('health-view');
        const CHARTS = [
          { id: 'requests', title: 'Requests', unit: '/s', value: (d) => d.requestsPerSecond },
          { id: 'latency', title: 'Latency (mean)', unit: ' ms', value: (d) => d.meanLatencyMs },
          { id: 'connections', title: 'Open connections', unit: '', value: (d) => d.connections },
          { id: 'listeners', title: 'Listeners (targets + tree streams)', unit: '', value: (d) => d.listeners },
          { id: 'commits', title: 'Commits', unit: '/s', value: (d) => d.commitsPerSecond },
          { id: 'database', title: 'Database on disk', unit: ' MiB', value: (d) => d.databaseMiB },
          { id: 'wal', title: 'Write-ahead log', unit: ' MiB', value: (d) => d.walMiB },
        ];

        // Prometheus text → { name: [{ labels, value }] }.
        function parseMetrics(text) {
          const metrics = {};
          for (const line of text.split('\n')) {
            if (!line || line.startsWith('#')) continue;
            const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
            if (!match) continue;
            const labels = {};
            for (const pair of (match[3] || '').matchAll(/([a-zA-Z_]+)="([^"]*)"/g)) labels[pair[1]] = pair[2];
            (metrics[match[1]] = metrics[match[1]] || []).push({ labels, value: Number(match[4]) });
          }
          return metrics;
        }
        // The total of a metric's samples, leaving out the console's own polling of /metrics.
        function total(metrics, name) {
          return (metrics[name] || []).filter((s) => s.labels.route !== 'metrics').reduce((sum, s) => sum + s.value, 0);
        }
        function gauge(metrics, name) { return ((metrics[name] || [])[0] || { value: 0 }).value; }

        function derive(now, metrics, previous) {
          const point = {
            time: now, requests: total(metrics, 'hearth_http_requests_total'),
            latencySum: total(metrics, 'hearth_http_request_duration_seconds_sum'),
            latencyCount: total(metrics, 'hearth_http_request_duration_seconds_count'),
            commits: gauge(metrics, 'hearth_commits_total'),
            connections: gauge(metrics, 'hearth_http_open_connections'),
            listeners: gauge(metrics, 'hearth_listen_targets') + gauge(metrics, 'hearth_tree_listeners'),
            databaseMiB: gauge(metrics, 'hearth_database_bytes') / 1048576,
            walMiB: gauge(metrics, 'hearth_wal_bytes') / 1048576,
          };
          const seconds = previous ? Math.max((now - previous.time) / 1000, 0.001) : 0;
          point.requestsPerSecond = previous ? Math.max(point.requests - previous.requests, 0) / seconds : 0;
          point.commitsPerSecond = previous ? Math.max(point.commits - previous.commits, 0) / seconds : 0;
          const count = previous ? point.latencyCount - previous.latencyCount : 0;
          point.meanLatencyMs = count > 0 ? ((point.latencySum - previous.latencySum) / count) * 1000 : 0;
          return point;
        }

        const SVG = 'http://www.w3.org/2000/svg';
        function svg(tag, attributes) {
          const node = document.createElementNS(SVG, tag);
          for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
          return node;
        }
        function format(value) {
          if (Number.isInteger(value) || value >= 100) return value.toFixed(0);
          if (value >= 10) return value.toFixed(1);
          return value.toFixed(2);
        }
        function chart(spec) {
          const values = health.samples.map(spec.value);
          const width = 240, height = 60;
          const top = Math.max(...values, 1e-9);
          const drawing = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'spark', role: 'img',
            'aria-label': `${spec.title} over the last minutes` });
          drawing.append(svg('line', { x1: 0, y1: height - 1, x2: width, y2: height - 1, class: 'axis' }));
          if (values.length > 1) {
            const step = width / (HEALTH_POINTS - 1);
            const offset = width - step * (values.length - 1);
            const points = values.map((v, i) => `${(offset + i * step).toFixed(1)},${(height - 2 - (v / top) * (height - 6)).toFixed(1)}`);
            drawing.append(svg('polyline', { points: points.join(' '), class: 'line' }));
          }
          const now = values.length ? values[values.length - 1] : 0;
          return el('div', { class: 'chart', id: `chart-${spec.id}` },
            el('div', { class: 'chart-title' }, spec.title),
            el('div', { class: 'chart-value' }, `${format(now)}${spec.unit}`),
            drawing,
            el('div', { class: 'chart-scale' }, `max ${format(top)}${spec.unit}`));
        }
        function drawHealth() {
          fill(healthView, el('div', { class: 'charts' }, ...CHARTS.map(chart)),
            el('p', { class: 'empty' }, `From /metrics every ${HEALTH_INTERVAL / 1000} s since this page was first opened; `
              + 'the console\'s own reads of /metrics are left out.'));
        }
        async function sampleHealth() {
          const response = await fetch('/metrics', { credentials: 'same-origin', headers: { ...ADMIN } });
          if (!response.ok) throw new Error(`GET /metrics failed: ${response.status}`);
          const point = derive(Date.now(), parseMetrics(await response.text()), health.previous);
          health.previous = point;
          health.samples.push(point);
          if (health.samples.length > HEALTH_POINTS) health.samples.shift();
          if (!healthView.hidden) drawHealth();
        }
        async function renderHealth() {
          drawHealth();
          if (health.timer === null) {
            await sampleHealth();
            health.timer = setInterval(guarded(sampleHealth), HEALTH_INTERVAL);
          }
        }

        TABS.health = renderHealth;
        """#
}
