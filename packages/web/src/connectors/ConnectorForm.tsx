import { useState, type FormEvent } from 'react';
import { CONNECTION_LABELS, CONNECTION_SECRET_FIELDS, CONNECTION_TYPES, DataConnectionBody, connectionFormFields, type ConnectionType } from '@studio/schema';
import type { DataConnection } from '@studio/client';
import { client } from '../app/api';
import { ErrorMessage, Field, TextField, useAction } from '../app/ui';

type Values = Record<string, string | boolean>;

/** The form's values of a kind: a saved connection's config, else each field's default. */
function valuesOf(type: ConnectionType, saved?: DataConnection): Values {
  return Object.fromEntries(connectionFormFields(type).map((f) => {
    const v = saved?.connectionType === type ? saved.config[f.name] : undefined;
    const value = v ?? f.defaultValue ?? (f.input === 'checkbox' ? false : '');
    return [f.name, typeof value === 'boolean' ? value : String(value)];
  }));
}

/**
 * A connection of a kind this studio has a driver for: the kind's fields (from its schema, the one the
 * server checks), its secrets (write-only: left empty on an edit, the saved one is kept), Test (the
 * warehouse's version, or its own message) and Save.
 */
export function ConnectorForm({ saved, onSaved }: { saved?: DataConnection; onSaved: (c: DataConnection) => void }) {
  const [type, setType] = useState<ConnectionType>(saved?.connectionType ?? 'postgres');
  const [name, setName] = useState(saved?.name ?? '');
  const [description, setDescription] = useState(saved?.description ?? '');
  const [values, setValues] = useState<Values>(() => valuesOf(type, saved));
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [editorsOnly, setEditorsOnly] = useState(saved?.runForEditorsOnly ?? false);
  const [error, setError] = useState<string | null>(null);
  const [tested, setTested] = useState<string | null>(null);
  const test = useAction();
  const save = useAction();
  const fields = connectionFormFields(type);
  const secretFields = CONNECTION_SECRET_FIELDS[type];
  const typedSecrets = Object.fromEntries(secretFields.filter((f) => secrets[f.name]).map((f) => [f.name, secrets[f.name]!]));
  const hasTypedSecrets = Object.keys(typedSecrets).length > 0;

  /** The body the API takes, checked with its own schema first (the same messages as a 422). */
  const body = (): DataConnectionBody | null => {
    const config = Object.fromEntries(fields.filter((f) => values[f.name] !== '').map((f) => [f.name, f.input === 'number' ? Number(values[f.name]) : values[f.name]]));
    const parsed = DataConnectionBody.safeParse({ type, name: name || 'unsaved', description, ...config, ...(hasTypedSecrets && { credentials: typedSecrets }), runForEditorsOnly: editorsOnly });
    if (!parsed.success) {
      setError(parsed.error.issues.map((i) => `${fields.find((f) => f.name === i.path[0])?.label ?? i.path.join('.')}: ${i.message}`).join('; '));
      return null;
    }
    setError(null);
    return parsed.data;
  };

  const runTest = () => {
    const b = body();
    if (!b) return;
    setTested(null);
    // An unchanged saved connection is tested with its stored secret; changed settings are tested as typed.
    void test.run(async () => {
      const r = saved && !hasTypedSecrets && JSON.stringify(valuesOf(type, saved)) === JSON.stringify(values) ? await client.connections.test({ connectionId: saved.id }) : await client.connections.test(b);
      setTested(r.serverVersion);
    });
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const b = body();
    if (!b) return;
    if (!name.trim()) return setError('Name must not be empty');
    void save.run(async () => onSaved(saved ? await client.connections.update(saved.id, b) : await client.connections.create(b)));
  };

  return (
    <form className="form connector-form" onSubmit={submit} aria-label="Connection">
      <Field label="Kind">
        <select value={type} disabled={Boolean(saved)} onChange={(e) => {
          const t = e.target.value as ConnectionType;
          setType(t);
          setValues(valuesOf(t));
          setSecrets({});
          setTested(null);
        }}>
          {CONNECTION_TYPES.map((t) => <option key={t} value={t}>{CONNECTION_LABELS[t]}</option>)}
        </select>
      </Field>
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} maxLength={500} required />
      <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
      {fields.map((f) => {
        const set = (v: string | boolean) => setValues({ ...values, [f.name]: v });
        if (f.input === 'checkbox') return <label key={f.name} className="check"><input type="checkbox" checked={values[f.name] === true} onChange={(e) => set(e.target.checked)} /> {f.label}</label>;
        if (f.input === 'select') {
          return (
            <Field key={f.name} label={f.label}>
              <select value={String(values[f.name] ?? '')} onChange={(e) => set(e.target.value)}>
                {f.options!.map((o) => <option key={o} value={o}>{o}</option>)}
              </select>
            </Field>
          );
        }
        if (f.input === 'textarea') return <TextFromFile key={f.name} label={f.label} value={String(values[f.name] ?? '')} onChange={set} />;
        return <TextField key={f.name} label={f.label} type={f.input} value={String(values[f.name] ?? '')} required={f.required} onChange={(e) => set(e.target.value)} />;
      })}
      {secretFields.map((f) => {
        const label = saved?.hasCredentials ? `${f.label} (leave empty to keep the saved one)` : f.label;
        const set = (v: string) => setSecrets({ ...secrets, [f.name]: v });
        return f.multiline
          ? <TextFromFile key={f.name} label={label} value={secrets[f.name] ?? ''} onChange={set} secret />
          : <TextField key={f.name} label={label} type="password" autoComplete="new-password" value={secrets[f.name] ?? ''} onChange={(e) => set(e.target.value)} />;
      })}
      <label className="check"><input type="checkbox" checked={editorsOnly} onChange={(e) => setEditorsOnly(e.target.checked)} /> Only editors may run queries (readers see and browse it)</label>
      {tested && <p className="notice" role="status">{`Connected: ${tested}`}</p>}
      <ErrorMessage message={error ?? test.error ?? save.error} />
      <footer className="dialog-actions">
        <button type="button" className="button" disabled={test.pending} onClick={runTest}>{test.pending ? 'Testing…' : 'Test'}</button>
        <button type="submit" className="button button-primary" disabled={save.pending}>{save.pending ? 'Saving…' : 'Save'}</button>
      </footer>
    </form>
  );
}

/**
 * Several lines of text (a CA certificate, a private key), typed or pasted, or read from a file the user
 * picks. A secret one is not spell-checked or auto-completed, and, like the other secrets, never shown
 * back once saved.
 */
function TextFromFile({ label, value, onChange, secret }: { label: string; value: string; onChange: (v: string) => void; secret?: boolean }) {
  return (
    <div className="text-from-file">
      <Field label={label}>
        <textarea value={value} rows={4} spellCheck={false} autoComplete="off" className={secret ? 'secret-text' : undefined} onChange={(e) => onChange(e.target.value)} />
      </Field>
      <label className="button button-small">
        Load from file…
        <input type="file" hidden aria-label={`${label}: load from file`} onChange={(e) => void e.target.files?.[0]?.text().then(onChange)} />
      </label>
    </div>
  );
}
