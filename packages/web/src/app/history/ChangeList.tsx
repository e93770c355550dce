import type { Change, TextDiffPart } from '@studio/schema';
import { colorOf, formatValue } from './versions';

/** How each area of a change reads in the list (the contract's areas; an unknown one shows its own name). */
const AREA_LABELS: Record<string, string> = {
  layer: 'Layer',
  filter: 'Filter',
  interaction: 'Interaction',
  mapStyle: 'Map style',
  view: 'View',
  widget: 'Widget',
  parameter: 'Parameter',
  layout: 'Layout',
  cell: 'Cell',
};

const KIND_LABELS: Record<Change['kind'], string> = { added: 'added', removed: 'removed', changed: 'changed', moved: 'moved' };

/** The changes between two versions (or made meanwhile, on a refused save), in the thing's terms. */
export function ChangeList({ changes }: { changes: Change[] }) {
  if (!changes.length) return <p className="muted">No changes: the two versions are the same.</p>;
  return (
    <ul className="history-changes" aria-label="Changes">
      {changes.map((c, i) => (
        <li key={i} className={`history-change history-change-${c.kind}`}>
          <div className="history-change-head">
            <span className="history-area">{AREA_LABELS[c.area] ?? c.area}</span> <strong>{c.label}</strong> <span className="history-kind">{KIND_LABELS[c.kind]}</span>
            {c.property && <code className="history-property">{c.property}</code>}
          </div>
          {c.textDiff ? <TextDiff parts={c.textDiff} /> : c.kind === 'changed' && <BeforeAfter before={c.before} after={c.after} />}
        </li>
      ))}
    </ul>
  );
}

function BeforeAfter({ before, after }: { before: unknown; after: unknown }) {
  return (
    <div className="history-before-after">
      <Value v={before} className="history-before" label="Before" /> <span aria-hidden="true">→</span> <Value v={after} className="history-after" label="After" />
    </div>
  );
}

function Value({ v, className, label }: { v: unknown; className: string; label: string }) {
  const color = colorOf(v);
  return (
    <span className={className} aria-label={`${label}: ${formatValue(v)}`}>
      {color && <span className="history-swatch" style={{ background: color }} aria-hidden="true" />}
      {formatValue(v)}
    </span>
  );
}

/** A text diff of SQL or markdown: deletions struck through, insertions marked, the rest as it was. */
function TextDiff({ parts }: { parts: TextDiffPart[] }) {
  return (
    <pre className="history-text-diff">
      {parts.map((p, i) => (p.op === 'insert' ? <ins key={i}>{p.text}</ins> : p.op === 'delete' ? <del key={i}>{p.text}</del> : <span key={i}>{p.text}</span>))}
    </pre>
  );
}
