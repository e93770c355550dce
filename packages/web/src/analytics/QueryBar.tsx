import { useId } from 'react';
import type { AnalyticQueryParameter } from '@studio/client';

export type Params = Record<string, unknown>;
export interface Period { periodType: 'MONTHLY' | 'QUARTERLY' | 'DAILY'; start: string; end: string }

const labelOf = (q: AnalyticQueryParameter, v: string) => q.labelValueMap?.[v] ?? v;

/** The values of a parameter by dropdown group (geography: country, market; taxonomy: category, chain). */
function grouped(q: AnalyticQueryParameter) {
  const groups = q.dropdownGroups ?? [];
  if (!groups.length) return [{ id: 'all', name: q.name, values: q.availableValues }];
  return groups.map((g) => ({ id: g.id, name: g.name, values: q.availableValues.filter((v) => g.prefixes.some((p) => v.startsWith(`${p}:`))) }));
}

/** DROPDOWN_GROUP: one value, the options grouped. */
function DropdownGroup({ q, value, onChange }: { q: AnalyticQueryParameter; value: string[]; onChange: (v: string[]) => void }) {
  const id = useId();
  return (
    <div className="qb-field">
      <label htmlFor={id}>{q.name}</label>
      <select id={id} value={value[0] ?? ''} onChange={(e) => onChange(e.target.value ? [e.target.value] : [])}>
        {!value[0] && <option value="">Choose…</option>}
        {grouped(q).map((g) => (
          <optgroup key={g.id} label={g.name}>
            {g.values.map((v) => <option key={v} value={v}>{labelOf(q, v)}</option>)}
          </optgroup>
        ))}
      </select>
    </div>
  );
}

/** STICKER_SELECTOR: several values shown as removable stickers, added from a grouped dropdown up to maxValues. */
function StickerSelector({ q, value, onChange }: { q: AnalyticQueryParameter; value: string[]; onChange: (v: string[]) => void }) {
  const id = useId();
  const full = q.maxValues !== undefined && value.length >= q.maxValues;
  return (
    <div className="qb-field qb-stickers" role="group" aria-label={q.name}>
      <label htmlFor={id}>{q.name}{q.maxValues ? <span className="muted small"> (up to {q.maxValues})</span> : null}</label>
      <div className="qb-sticker-row">
        {value.map((v) => (
          <span key={v} className="sticker">
            {labelOf(q, v)}
            <button type="button" aria-label={`Remove ${labelOf(q, v)}`} disabled={value.length <= (q.minValues ?? 0)} onClick={() => onChange(value.filter((x) => x !== v))}>×</button>
          </span>
        ))}
        <select id={id} value="" disabled={full} aria-label={`Add to ${q.name}`} onChange={(e) => e.target.value && onChange([...value, e.target.value])}>
          <option value="">{full ? 'Limit reached' : 'Add…'}</option>
          {grouped(q).map((g) => (
            <optgroup key={g.id} label={g.name}>
              {g.values.filter((v) => !value.includes(v)).map((v) => <option key={v} value={v}>{labelOf(q, v)}</option>)}
            </optgroup>
          ))}
        </select>
      </div>
    </div>
  );
}

/** DROPDOWN (cohorts): any number of values; none means all. */
function CohortDropdown({ q, value, onChange }: { q: AnalyticQueryParameter; value: string[]; onChange: (v: string[]) => void }) {
  return (
    <details className="qb-field qb-dropdown">
      <summary aria-label={`${q.name}: ${value.length ? value.join(', ') : 'all'}`}>{q.name}: {value.length ? value.join(', ') : 'All'}</summary>
      <div className="qb-menu" role="group" aria-label={q.name}>
        {q.availableValues.map((v) => (
          <label key={v} className="qb-check">
            <input type="checkbox" checked={value.includes(v)} onChange={(e) => onChange(e.target.checked ? q.availableValues.filter((x) => x === v || value.includes(x)) : value.filter((x) => x !== v))} />
            {labelOf(q, v)}
          </label>
        ))}
      </div>
    </details>
  );
}

// --- periods: Monthly YYYY-MM, Quarterly YYYY-Q#, Daily YYYY-MM-DD (analytics-and-admin §9) ---------
const firstDay = (t: Period['periodType'], p: string): string => {
  if (t === 'DAILY') return p;
  if (t === 'MONTHLY') return `${p}-01`;
  return `${p.slice(0, 4)}-${String((Number(p.slice(6)) - 1) * 3 + 1).padStart(2, '0')}-01`;
};
const lastDay = (t: Period['periodType'], p: string): string => {
  if (t === 'DAILY') return p;
  const start = new Date(`${firstDay(t, p)}T00:00:00Z`);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + (t === 'MONTHLY' ? 1 : 3), 0)).toISOString().slice(0, 10);
};
export const periodOf = (t: Period['periodType'], day: string): string => {
  if (t === 'DAILY') return day;
  if (t === 'MONTHLY') return day.slice(0, 7);
  return `${day.slice(0, 4)}-Q${Math.floor((Number(day.slice(5, 7)) - 1) / 3) + 1}`;
};
/** Switching type keeps the range: the new start holds the old first day, the new end the old last day. */
export const convertPeriod = (p: Period, to: Period['periodType']): Period => ({
  periodType: to, start: periodOf(to, firstDay(p.periodType, p.start)), end: periodOf(to, lastDay(p.periodType, p.end)),
});

function quarters(from: string, to: string): string[] {
  const out: string[] = [];
  for (let y = Number(from.slice(0, 4)); y <= Number(to.slice(0, 4)); y++) for (let q = 1; q <= 4; q++) out.push(`${y}-Q${q}`);
  return out;
}

function PeriodInput({ type, value, onChange, label, min, max }: { type: Period['periodType']; value: string; onChange: (v: string) => void; label: string; min?: string; max?: string }) {
  const id = useId();
  const lo = min ?? '2000-01-01';
  const hi = max ?? new Date().toISOString().slice(0, 10);
  return (
    <span className="qb-period-end">
      <label htmlFor={id}>{label}</label>
      {type === 'QUARTERLY' ? (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          {quarters(lo, hi).map((q) => <option key={q} value={q}>{q}</option>)}
        </select>
      ) : (
        <input id={id} type={type === 'MONTHLY' ? 'month' : 'date'} value={value} min={periodOf(type, lo)} max={periodOf(type, hi)}
          placeholder={type === 'MONTHLY' ? 'YYYY-MM' : 'YYYY-MM-DD'} pattern={type === 'MONTHLY' ? '\\d{4}-\\d{2}' : '\\d{4}-\\d{2}-\\d{2}'}
          onChange={(e) => e.target.value && onChange(e.target.value)} />
      )}
    </span>
  );
}

/** RANGE_PERIOD (start and end) or SINGLE_PERIOD (one period), with the Monthly / Quarterly / Daily switch. */
function PeriodField({ q, value, onChange, single }: { q: AnalyticQueryParameter; value: Period; onChange: (v: Period) => void; single?: boolean }) {
  const id = useId();
  const ranges = q.periodRanges ?? [{ periodType: 'MONTHLY', name: 'Monthly', format: 'YYYY-MM' }];
  return (
    <div className="qb-field qb-period" role="group" aria-label={q.name}>
      <label htmlFor={id}>{q.name}</label>
      <div className="qb-period-row">
        <select id={id} aria-label="Period type" value={value.periodType} onChange={(e) => onChange(convertPeriod(value, e.target.value as Period['periodType']))}>
          {ranges.map((r) => <option key={r.periodType} value={r.periodType}>{r.name}</option>)}
        </select>
        <PeriodInput type={value.periodType} label={single ? 'Period' : 'From'} value={value.start} min={q.startDate} max={q.endDate}
          onChange={(start) => onChange({ ...value, start, end: single ? start : value.end })} />
        {!single && <PeriodInput type={value.periodType} label="To" value={value.end} min={q.startDate} max={q.endDate} onChange={(end) => onChange({ ...value, end })} />}
      </div>
    </div>
  );
}

/** PIVOT_TABLE: each dimension on the rows, the columns, or neither. */
function PivotField({ q, value, onChange }: { q: AnalyticQueryParameter; value: { rows: string[]; columns: string[] }; onChange: (v: { rows: string[]; columns: string[] }) => void }) {
  const where = (d: string) => (value.rows.includes(d) ? 'rows' : value.columns.includes(d) ? 'columns' : '');
  const move = (d: string, to: string) => {
    const rows = value.rows.filter((x) => x !== d);
    const columns = value.columns.filter((x) => x !== d);
    if (to === 'rows') rows.push(d);
    if (to === 'columns') columns.push(d);
    onChange({ rows, columns });
  };
  return (
    <div className="qb-field qb-pivot" role="group" aria-label={q.name}>
      <span className="qb-label">{q.name}</span>
      <div className="qb-pivot-row">
        {q.availableValues.map((d) => (
          <label key={d} className="qb-pivot-dim">
            <span>{d}</span>
            <select aria-label={`Pivot ${d}`} value={where(d)} onChange={(e) => move(d, e.target.value)}>
              <option value="">—</option>
              <option value="rows">Rows</option>
              <option value="columns">Columns</option>
            </select>
          </label>
        ))}
      </div>
    </div>
  );
}

/** The query bar of a view: one control per query parameter, by its form type. */
export function QueryBar({ parameters, value, onChange }: { parameters: AnalyticQueryParameter[]; value: Params; onChange: (v: Params) => void }) {
  const set = (id: string) => (v: unknown) => onChange({ ...value, [id]: v });
  return (
    <form className="query-bar card" aria-label="Query" onSubmit={(e) => e.preventDefault()}>
      {parameters.map((q) => {
        const v = value[q.id];
        switch (q.formType) {
          case 'DROPDOWN_GROUP':
            return <DropdownGroup key={q.id} q={q} value={(v as string[]) ?? []} onChange={set(q.id)} />;
          case 'STICKER_SELECTOR':
            return <StickerSelector key={q.id} q={q} value={(v as string[]) ?? []} onChange={set(q.id)} />;
          case 'DROPDOWN':
            return <CohortDropdown key={q.id} q={q} value={(v as string[]) ?? []} onChange={set(q.id)} />;
          case 'RANGE_PERIOD':
          case 'SINGLE_PERIOD':
            return v ? <PeriodField key={q.id} q={q} value={v as Period} single={q.formType === 'SINGLE_PERIOD'} onChange={set(q.id)} /> : null;
          case 'PIVOT_TABLE':
            return <PivotField key={q.id} q={q} value={(v as { rows: string[]; columns: string[] }) ?? { rows: [], columns: [] }} onChange={set(q.id)} />;
          default:
            return null;
        }
      })}
    </form>
  );
}
