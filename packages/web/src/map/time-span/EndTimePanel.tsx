import type { ComponentProps } from 'react';
import { TimeRangeFilterPanelFactory } from '@kepler.gl/components';
import { END_FIELD, type SpanField, type SpanFilter } from './gpu-span';

type Datasets = Record<string, { label?: string; fields: SpanField[] } | undefined>;

/**
 * "End time" under a time filter in kepler's filter panel: per dataset of the filter, one of its other timestamp
 * fields or none. With one, the playback shows a feature from its start to its end (gpu-span.ts).
 */
export function EndTimeFields({ filter, datasets, onChange }: { filter: SpanFilter & { name?: string[] }; datasets: Datasets; onChange: (names: (string | null)[]) => void }) {
  const chosen = filter[END_FIELD] ?? [];
  const rows = filter.dataId.map((id, k) => {
    const d = datasets[id];
    const start = filter.name?.[k];
    return { id, k, label: d?.label ?? id, fields: (d?.fields ?? []).filter((f) => f.type === 'timestamp' && f.name !== start).map((f) => f.name) };
  });
  if (!rows.some((r) => r.fields.length)) return null;
  const pick = (k: number, name: string) => onChange(filter.dataId.map((_, j) => (j === k ? name || null : (chosen[j] ?? null))));
  return (
    <div className="studio-end-time">
      {rows.map((r) =>
        r.fields.length ? (
          <label key={r.id}>
            <span>{rows.length > 1 ? `End time (${r.label})` : 'End time'}</span>
            <select value={chosen[r.k] ?? ''} onChange={(e) => pick(r.k, e.target.value)} title="With an end time, the playback shows each feature from its start until its end">
              <option value="">None: at its start time</option>
              {r.fields.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        ) : null,
      )}
    </div>
  );
}

/** kepler's time filter panel with the end-time choice below it (injected: injections.tsx). */
export function StudioTimeRangeFilterPanelFactory(...deps: Parameters<typeof TimeRangeFilterPanelFactory>) {
  const Base = TimeRangeFilterPanelFactory(...deps);
  const StudioTimeRangeFilterPanel = (props: ComponentProps<typeof Base>) => {
    const { filter, datasets, idx, setFilter } = props as unknown as { filter: SpanFilter & { name?: string[] }; datasets: Datasets; idx: number; setFilter: (idx: number, prop: string, value: unknown) => void };
    return (
      <>
        <Base {...props} />
        <EndTimeFields filter={filter} datasets={datasets} onChange={(names) => setFilter(idx, END_FIELD, names)} />
      </>
    );
  };
  return StudioTimeRangeFilterPanel;
}
StudioTimeRangeFilterPanelFactory.deps = TimeRangeFilterPanelFactory.deps;
