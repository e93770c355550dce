import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { Compartment, Prec } from '@codemirror/state';
import { completeFromList, type Completion } from '@codemirror/autocomplete';
import { PostgreSQL, sql, type SQLNamespace } from '@codemirror/lang-sql';

/** A SQL editor of the studio's workspaces: the connections' and the one over datasets share it. */
export interface SqlEditor {
  view: EditorView;
  /** Completion of tables and columns (loaded after the editor opens: it is a help, not a wait). */
  setSchema(schema: SQLNamespace): void;
  /** Replaces the whole text (a saved query opened, a run from the history). */
  setText(text: string): void;
  /** What Run runs: the selection when there is one, else the whole text (the editor's own, not React's copy). */
  runnable(): string;
}

/**
 * A CodeMirror editor in `parent`: PostgreSQL's SQL dialect (DuckDB reads the same), Run on Ctrl/Cmd-Enter,
 * completion of `functions` besides the schema's tables and columns. `onText` hears every change.
 */
export function createSqlEditor(parent: HTMLElement, opts: { doc: string; onRun: () => void; onText: (text: string) => void; functions?: Completion[] }): SqlEditor {
  const language = new Compartment();
  const functions = opts.functions?.length ? [PostgreSQL.language.data.of({ autocomplete: completeFromList(opts.functions) })] : [];
  const view = new EditorView({
    doc: opts.doc,
    parent,
    extensions: [
      basicSetup,
      language.of(sql({ dialect: PostgreSQL })),
      ...functions,
      Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (opts.onRun(), true) }])),
      EditorView.contentAttributes.of({ 'aria-label': 'SQL' }),
      EditorView.updateListener.of((u) => u.docChanged && opts.onText(u.state.doc.toString().trim())),
    ],
  });
  return {
    view,
    setSchema: (schema) => view.dispatch({ effects: language.reconfigure(sql({ dialect: PostgreSQL, schema })) }),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    runnable: () => {
      const { state } = view;
      const selection = state.selection.main;
      return (selection.empty ? state.doc.toString() : state.sliceDoc(selection.from, selection.to)).trim();
    },
  };
}
