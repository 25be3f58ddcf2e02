/// The console's style sheet: three columns that stack on a narrow window.
enum ConsoleStyle {
    /// The CSS served at `/console/console.css`.
    static let source = #"""
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: #202124; background: #f8f9fa; }
        header { display: flex; gap: 1em; align-items: center; padding: .5em 1em; background: #fff;
          border-bottom: 1px solid #dadce0; }
        header nav { display: flex; gap: .25em; flex: 1; }
        button { font: inherit; padding: .3em .8em; border: 1px solid #dadce0; border-radius: 4px; background: #fff;
          cursor: pointer; }
        button:focus-visible, input:focus-visible, select:focus-visible, li:focus-visible { outline: 2px solid #1a73e8; }
        button[aria-selected="true"] { background: #e8f0fe; border-color: #1a73e8; }
        button.danger { color: #c5221f; }
        #live.on { color: #188038; }
        #error { margin: .5em 1em; padding: .5em 1em; background: #fce8e6; color: #c5221f; border-radius: 4px; }
        main { padding: 1em; }
        .path { margin-bottom: .5em; color: #5f6368; word-break: break-all; }
        .path button { border: none; background: none; color: #1a73e8; padding: 0 .2em; }
        .columns { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 1em; }
        .column { background: #fff; border: 1px solid #dadce0; border-radius: 6px; min-height: 20em; overflow: hidden; }
        .column h2 { margin: 0; padding: .5em .8em; font-size: 1em; border-bottom: 1px solid #dadce0;
          display: flex; justify-content: space-between; align-items: center; gap: .5em; word-break: break-all; }
        ul.list { list-style: none; margin: 0; padding: 0; max-height: 60vh; overflow: auto; }
        ul.list li { padding: .35em .8em; cursor: pointer; border-bottom: 1px solid #f1f3f4; word-break: break-all; }
        ul.list li[aria-selected="true"] { background: #e8f0fe; }
        .changed { animation: flash 1.5s; }
        @keyframes flash { from { background: #fef7cd; } to { background: transparent; } }
        table.fields { width: 100%; border-collapse: collapse; }
        table.fields td { padding: .3em .8em; border-bottom: 1px solid #f1f3f4; vertical-align: top; word-break: break-all; }
        td.type { color: #5f6368; font-size: .85em; white-space: nowrap; }
        form.inline { display: flex; flex-wrap: wrap; gap: .4em; padding: .5em .8em; border-top: 1px solid #f1f3f4; }
        form.inline input, form.inline select { font: inherit; padding: .25em .4em; min-width: 0; flex: 1 1 6em; }
        .empty { color: #80868b; padding: .5em .8em; }
        .tree ul { list-style: none; margin: 0; padding-left: 1.2em; }
        .tree > ul { padding-left: 0; }
        .tree li { padding: .1em 0; }
        .tree .key { font-weight: 600; }
        .tree .value { color: #188038; cursor: text; }
        .tree .toggle { border: none; background: none; padding: 0 .3em; }
        .tree .actions button { padding: 0 .4em; margin-left: .3em; font-size: .85em; }
        form.sign-in { max-width: 26em; margin: 3em auto; padding: 1em; display: flex; flex-direction: column;
          gap: .6em; min-height: 0; }
        form.sign-in h2 { padding: 0 0 .5em; }
        form.sign-in input { font: inherit; padding: .4em; }
        #sign-out { margin-left: auto; }
        .accounts { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 1em; }
        .accounts #users { grid-row: span 2; }
        table.users, table.grid { width: 100%; border-collapse: collapse; }
        table.users th, table.grid th { text-align: left; font-weight: 600; color: #5f6368; font-size: .85em;
          white-space: nowrap; }
        table.users th, table.users td, table.grid th, table.grid td { padding: .3em .6em;
          border-bottom: 1px solid #f1f3f4; vertical-align: top; overflow-wrap: anywhere; }
        table.users td.when { white-space: nowrap; font-size: .9em; }
        .accounts #user-detail:empty { display: none; }
        table.users td.uid { font-family: ui-monospace, monospace; font-size: .85em; }
        table.users td.actions { white-space: nowrap; }
        table.users td.actions button { padding: .1em .5em; font-size: .85em; }
        .paging { display: flex; gap: .6em; align-items: center; padding: .5em .8em; }
        form.stacked { display: flex; flex-direction: column; gap: .4em; padding: .5em .8em; }
        form.stacked label { display: flex; flex-direction: column; gap: .3em; }
        form.stacked textarea { font: 13px ui-monospace, monospace; padding: .3em; }
        .field-error { color: #c5221f; margin: 0; }
        .mail { display: flex; flex-wrap: wrap; gap: .4em; padding: .5em .8em; align-items: center; }
        ul.outbox li { cursor: default; }
        .rule-kinds { display: flex; gap: .25em; margin-bottom: .6em; }
        .rules { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1em; }
        #rules-source { width: 100%; border: none; border-bottom: 1px solid #f1f3f4; padding: .6em .8em; resize: vertical;
          font: 13px/1.45 ui-monospace, monospace; tab-size: 2; }
        #rules-status { margin: 0; padding: .4em .8em; }
        #rules-verdict { padding: .3em 0; }
        #rules-verdict .allowed { color: #188038; }
        #rules-verdict .denied { color: #c5221f; }
        #rules-verdict button { margin-left: .5em; font-size: .85em; padding: .1em .5em; }
        form.stacked input, form.stacked select { font: inherit; padding: .25em .4em; }
        td.state.ready { color: #188038; }
        td.state.building { color: #b06000; }
        td.state.off { color: #5f6368; }
        table.grid td.state { white-space: nowrap; }
        .column h3 { margin: .8em .8em .2em; font-size: .95em; }
        code.secret { letter-spacing: 0.05em; }
        td.state .progress { display: flex; flex-wrap: wrap; gap: 0.25rem 0.5rem; align-items: center; }
        code.definition { display: block; font-size: .8em; color: #5f6368; overflow-wrap: anywhere; margin-top: .2em; }
        .charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(16em, 1fr)); gap: 1em; }
        .chart { background: #fff; border: 1px solid #dadce0; border-radius: 6px; padding: .6em .8em; }
        .chart-title { color: #5f6368; font-size: .85em; }
        .chart-value { font-size: 1.4em; font-weight: 600; }
        .chart-scale { color: #80868b; font-size: .75em; text-align: right; }
        svg.spark { width: 100%; height: 4em; display: block; }
        svg.spark .line { fill: none; stroke: #1a73e8; stroke-width: 1.5; }
        svg.spark .axis { stroke: #dadce0; stroke-width: 1; }
        @media (max-width: 800px) { .columns, .accounts, .rules { grid-template-columns: 1fr; } }
        """#
}
