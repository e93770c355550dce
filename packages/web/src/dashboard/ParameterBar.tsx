import { useEffect, useState } from 'react';
import { MULTI_VALUE_TYPES, RELATIVE_PERIODS, type Parameter } from '@studio/schema';
import { errorMessage } from '../app/useLoad';

/** One control per parameter; values are in link form (what /dashboard/{id}?name=value carries). */
export function ParameterBar({ parameters, values, choices, onChange }: {
  parameters: Parameter[];
  values: Record<string, string>;
  choices: (p: Parameter) => Promise<string[]>;
  onChange: (id: string, value: string) => void;
}) {
  if (parameters.length === 0) return null;
  return (
    <div className="parameter-bar" role="group" aria-label="Parameters">
      {/* A value not in the link is the parameter's default, which the widgets use too. */}
      {parameters.map((p) => <ParameterControl key={p.id} p={p} value={values[p.id] ?? p.defaultValue ?? ''} choices={choices} onChange={(v) => onChange(p.id, v)} />)}
    </div>
  );
}

function ParameterControl({ p, value, choices, onChange }: { p: Parameter; value: string; choices: (p: Parameter) => Promise<string[]>; onChange: (v: string) => void }) {
  const label = p.label || p.id;
  const [options, setOptions] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const needsChoices = !['TEXT', 'SINGLE_PERIOD', 'RANGE_PERIOD'].includes(p.type);
  useEffect(() => {
    if (needsChoices) choices(p).then(setOptions, (e: unknown) => setError(errorMessage(e)));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a parameter's choices follow its definition
  }, [JSON.stringify(p)]);
  if (p.type === 'TEXT') return <label className="parameter">{label}<input type="search" value={value} onChange={(e) => onChange(e.target.value)} /></label>;
  if (p.type === 'SINGLE_PERIOD' || p.type === 'RANGE_PERIOD') {
    const [from, to] = value.includes('..') ? value.split('..') : ['', ''];
    return (
      <fieldset className="parameter parameter-period">
        <legend>{label}</legend>
        {p.type === 'SINGLE_PERIOD' && (
          <select aria-label={`${label} period`} value={value.includes('..') ? 'range' : value} onChange={(e) => onChange(e.target.value === 'range' ? '' : e.target.value)}>
            <option value="">All time</option>
            {Object.keys(RELATIVE_PERIODS).map((k) => <option key={k} value={k}>{k.replaceAll('-', ' ')}</option>)}
            <option value="range">Dates…</option>
          </select>
        )}
        <input type="date" aria-label={`${label} from`} value={from} onChange={(e) => onChange(e.target.value && (to || e.target.value) ? `${e.target.value}..${to || e.target.value}` : '')} />
        <input type="date" aria-label={`${label} to`} value={to} onChange={(e) => onChange(e.target.value ? `${from || e.target.value}..${e.target.value}` : '')} />
      </fieldset>
    );
  }
  const multi = MULTI_VALUE_TYPES.includes(p.type);
  const picked = value ? value.split(',') : [];
  if (error) return <span className="parameter error" role="alert">{`${label}: ${error}`}</span>;
  if (multi) {
    return (
      <fieldset className="parameter parameter-stickers">
        <legend>{label}</legend>
        {picked.map((v) => <button key={v} type="button" className="sticker" onClick={() => onChange(picked.filter((x) => x !== v).join(','))} aria-label={`Remove ${v}`}>{v} ×</button>)}
        <select aria-label={label} value="" onChange={(e) => e.target.value && onChange([...picked, e.target.value].join(','))}>
          <option value="">Add…</option>
          {(options ?? []).filter((o) => !picked.includes(o)).map((o) => <option key={o} value={o}>{o}</option>)}
        </select>
      </fieldset>
    );
  }
  return (
    <label className="parameter">
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">All</option>
        {(options ?? []).map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    </label>
  );
}
