import { useEffect, useState } from 'react';
import type { SchemaEntry } from '@studio/client';
import { client } from '../app/api';
import { ErrorMessage } from '../app/ui';
import { errorMessage } from '../app/useLoad';

/** One level of the tree, loaded when it is first opened: schemas, then tables, then columns with types. */
function Level({ connectionId, schema, table, label }: { connectionId: string; schema?: string; table?: string; label: string }) {
  const [items, setItems] = useState<SchemaEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState(schema === undefined);
  const needed = open && items === null && error === null;
  useEffect(() => {
    if (!needed) return undefined;
    let stale = false;
    client.connections.browse(connectionId, schema, table).then((r) => !stale && setItems(r), (e: unknown) => !stale && setError(errorMessage(e)));
    return () => {
      stale = true;
    };
  }, [needed, connectionId, schema, table]);
  const toggle = () => setOpen(!open);
  const body = open && (
    <ul className="schema-level">
      {error && <li><ErrorMessage message={error} /></li>}
      {items === null && !error && <li className="muted" role="status">Loading…</li>}
      {items?.length === 0 && <li className="muted">Nothing here</li>}
      {items?.map((e) =>
        e.type === 'column' ? (
          <li key={e.name} className="schema-column">
            <span>{e.name}</span> <code className="muted">{e.dataType}{e.nullable === false ? ' not null' : ''}</code>
          </li>
        ) : (
          <li key={e.name}>
            <Level connectionId={connectionId} schema={schema ?? e.name} table={schema === undefined ? undefined : e.name} label={`${e.name}${e.type === 'view' ? ' (view)' : ''}`} />
          </li>
        ),
      )}
    </ul>
  );
  // Nested lists of disclosure buttons (aria-expanded), in a named region: ARIA's tree role would also ask
  // for treeitem children and arrow-key moves between them.
  if (schema === undefined) return <div className="schema-tree" role="region" aria-label={label}>{body}</div>;
  return (
    <>
      <button type="button" className="schema-toggle" aria-expanded={open} onClick={toggle}>{`${open ? '▾' : '▸'} ${label}`}</button>
      {body}
    </>
  );
}

/** A connection's schemas → tables → columns (information_schema), each level fetched on first open. */
export function SchemaTree({ connectionId }: { connectionId: string }) {
  return <Level connectionId={connectionId} label="Schemas" />;
}
