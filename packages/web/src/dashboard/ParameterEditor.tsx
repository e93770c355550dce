import { useState, type FormEvent } from 'react';
import { PARAMETER_TYPES, Parameter, type DashboardState, type ParameterType } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, ErrorMessage, Field, TextField } from '../app/ui';
import { useLoad } from '../app/useLoad';

/** Add a parameter: its link name, type, the column it filters, where its choices come from, and the widgets it filters. */
export function ParameterEditor({ state, onSave, onClose }: { state: DashboardState; onSave: (p: Parameter, bindTo: string[]) => void; onClose: () => void }) {
  const dataWidgets = state.widgets.filter((w) => w.query);
  const [id, setId] = useState('');
  const [label, setLabel] = useState('');
  const [type, setType] = useState<ParameterType>('DROPDOWN');
  const [datasetId, setDatasetId] = useState(dataWidgets[0]?.query?.datasetId ?? '');
  const [column, setColumn] = useState('');
  const [staticValues, setStaticValues] = useState('');
  const [bindTo, setBindTo] = useState<string[]>(dataWidgets.map((w) => w.id));
  const [error, setError] = useState<string | null>(null);
  const dataset = useLoad(() => (datasetId ? client.datasets.get(datasetId) : Promise.resolve(null)), [datasetId]);
  const datasetIds = [...new Set(dataWidgets.map((w) => w.query!.datasetId))];
  const period = type === 'SINGLE_PERIOD' || type === 'RANGE_PERIOD';

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const values = staticValues.split(',').map((v) => v.trim()).filter(Boolean);
    const source = period || type === 'TEXT' ? { kind: 'STATIC', values: [] } : values.length ? { kind: 'STATIC', values } : { kind: 'DYNAMIC', datasetId, column };
    const parsed = Parameter.safeParse({ id: id || column.replace(/[^A-Za-z0-9_]/g, '_').replace(/^[^A-Za-z]+/, '') || 'p', label: label || column, type, column, source });
    if (!parsed.success) return setError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    if (state.parameters.some((p) => p.id === parsed.data.id)) return setError(`A parameter named ${parsed.data.id} exists already`);
    onSave(parsed.data, bindTo);
  };

  return (
    <Dialog title="Add parameter" onClose={onClose} wide>
      <form className="form" onSubmit={submit}>
        <Field label="Type">
          <select value={type} onChange={(e) => setType(e.target.value as ParameterType)}>
            {PARAMETER_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </Field>
        <Field label="Dataset of the column">
          <select value={datasetId} onChange={(e) => setDatasetId(e.target.value)} required>
            {datasetIds.length === 0 && <option value="">Add a data widget first</option>}
            {datasetIds.map((d) => <option key={d} value={d}>{d === dataset.data?.id ? dataset.data.name : d}</option>)}
          </select>
        </Field>
        <Field label={period ? 'Date column' : 'Column'}>
          <select value={column} onChange={(e) => setColumn(e.target.value)} required>
            <option value="">Choose a column</option>
            {(dataset.data?.metadata.columns ?? []).map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
          </select>
        </Field>
        <TextField label="Label" value={label} onChange={(e) => setLabel(e.target.value)} />
        <TextField label="Name in links (a letter, then letters, digits or _)" value={id} onChange={(e) => setId(e.target.value)} placeholder={column || 'category'} />
        {!period && type !== 'TEXT' && <TextField label="Fixed choices, comma-separated (empty: the column's values)" value={staticValues} onChange={(e) => setStaticValues(e.target.value)} />}
        <fieldset className="checks">
          <legend>Filters these widgets</legend>
          {dataWidgets.map((w) => (
            <label key={w.id}><input type="checkbox" checked={bindTo.includes(w.id)} onChange={(e) => setBindTo(e.target.checked ? [...bindTo, w.id] : bindTo.filter((x) => x !== w.id))} /> {w.title || w.id}</label>
          ))}
        </fieldset>
        <ErrorMessage message={error} />
        <footer className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary">Add</button>
        </footer>
      </form>
    </Dialog>
  );
}
