import { useId, useState } from 'react';
import type { NodeType } from '@studio/pipeline';
import type { StepCell, WorkbookState } from '@studio/schema';
import { STEP_SPECS, STEP_TYPES, expressionProblem, fieldText, withFieldText, type Field } from './steps';
import { makesTable } from './cells';
import type { Column } from './run';

export interface Choice {
  id: string;
  name: string;
}

/** What a step's form can offer: the columns of its first input, the datasets and connections the user reads. */
export interface StepChoices {
  columns: Column[];
  datasets: Choice[];
  connections: Choice[];
}

/**
 * A step cell's form: its type, the cells it reads, and one input per prop of its node type (STEP_SPECS).
 * Every edit goes straight into the node; expression fields show the expression parser's message as typed.
 */
export function StepForm({ cell, state, choices, readOnly, onChange }: { cell: StepCell; state: WorkbookState; choices: StepChoices; readOnly: boolean; onChange: (cell: StepCell) => void }) {
  const type = cell.node.type as NodeType;
  const spec = STEP_SPECS[type];
  const above = state.cells.slice(0, state.cells.findIndex((c) => c.id === cell.id)).filter(makesTable);
  const [min, max] = spec?.inputs ?? [0, 0];
  const inputSlots = Math.max(min, Math.min(cell.inputs.length, max));
  const id = useId();
  if (!spec) return <p className="error" role="alert">{`Unknown step type ${type}: pick one of ${STEP_TYPES.join(', ')}`}</p>;

  const setInput = (i: number, name: string) => {
    const inputs = [...cell.inputs];
    inputs[i] = name;
    onChange({ ...cell, inputs: inputs.filter((n, j) => n || j < min) });
  };
  return (
    <fieldset className="step-form" disabled={readOnly} aria-label={`${spec.label} step`}>
      <div className="step-row">
        <label className="step-field">
          Step
          <select
            value={type}
            onChange={(e) => {
              const next = e.target.value as NodeType;
              const nextSpec = STEP_SPECS[next];
              onChange({ ...cell, node: { type: next, ...structuredClone(nextSpec.initial) }, inputs: Array.from({ length: nextSpec.inputs[0] }, (_, i) => cell.inputs[i] ?? '') });
            }}
          >
            {STEP_TYPES.map((t) => <option key={t} value={t}>{STEP_SPECS[t].label}</option>)}
          </select>
        </label>
        {Array.from({ length: max === Infinity ? inputSlots + 1 : inputSlots }, (_, i) => (
          <label key={i} className="step-field">
            {max > 1 ? `Input ${i + 1}` : 'Input'}
            <select aria-label={max > 1 ? `Input ${i + 1}` : 'Input'} value={cell.inputs[i] ?? ''} onChange={(e) => setInput(i, e.target.value)}>
              <option value="">{i < min ? 'Pick a cell…' : '(none)'}</option>
              {above.map((c) => <option key={c.id} value={c.name}>{c.name}</option>)}
            </select>
          </label>
        ))}
        <span className="muted small">{spec.summary}</span>
      </div>
      {spec.fields.map((f) => (
        <FieldInput key={`${type}:${f.prop}`} id={`${id}-${f.prop}`} field={f} node={cell.node} choices={choices} onChange={(node) => onChange({ ...cell, node: node as StepCell['node'] })} />
      ))}
    </fieldset>
  );
}

function FieldInput({ id, field, node, choices, onChange }: { id: string; field: Field; node: Record<string, unknown>; choices: StepChoices; onChange: (node: Record<string, unknown>) => void }) {
  // JSON and integers keep the text as typed (a half-typed shape is not yet JSON).
  const [draft, setDraft] = useState<string | null>(null);
  const text = draft ?? fieldText(field, node);
  const set = (t: string) => {
    setDraft(field.kind === 'json' || field.kind === 'integer' || field.kind === 'number' || field.kind === 'aggregates' ? t : null);
    onChange(withFieldText(field, node, t));
  };
  const problem = expressionProblem(field, text);
  const label = `${field.label}${field.optional ? ' (optional)' : ''}`;
  let input;
  switch (field.kind) {
    case 'enum':
      input = (
        <select id={id} value={text} onChange={(e) => set(e.target.value)}>
          {field.optional && <option value="">(none)</option>}
          {field.options!.map((o) => <option key={o} value={o}>{o}</option>)}
        </select>
      );
      break;
    case 'dataset':
    case 'connection': {
      const list = field.kind === 'dataset' ? choices.datasets : choices.connections;
      input = (
        <select id={id} value={text} onChange={(e) => set(e.target.value)}>
          <option value="">{field.kind === 'dataset' ? 'Pick a dataset…' : 'Pick a connection…'}</option>
          {text && !list.some((c) => c.id === text) && <option value={text}>{text}</option>}
          {list.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
        </select>
      );
      break;
    }
    case 'columns':
      if (choices.columns.length && !field.single) {
        const picked = new Set(text.split('\n').filter(Boolean));
        input = (
          <div id={id} className="column-picks" role="group" aria-label={label}>
            {choices.columns.map((c) => (
              <label key={c.name} className="check">
                <input type="checkbox" checked={picked.has(c.name)} onChange={(e) => set(choices.columns.map((x) => x.name).filter((n) => (n === c.name ? e.target.checked : picked.has(n))).join('\n'))} />
                {c.name}
              </label>
            ))}
          </div>
        );
      } else if (choices.columns.length) {
        input = (
          <select id={id} value={text} onChange={(e) => set(e.target.value)}>
            <option value="">{field.optional ? '(none)' : 'Pick a column…'}</option>
            {choices.columns.map((c) => <option key={c.name} value={c.name}>{`${c.name} (${c.type})`}</option>)}
          </select>
        );
      } else {
        input = <textarea id={id} rows={2} value={text} placeholder="One column per line" onChange={(e) => set(e.target.value)} />;
      }
      break;
    case 'items':
    case 'sortKeys':
    case 'lines':
    case 'textarea':
    case 'json':
    case 'aggregates':
      input = <textarea id={id} rows={field.kind === 'json' || field.kind === 'textarea' ? 5 : 3} value={text} spellCheck={false} onChange={(e) => set(e.target.value)} aria-invalid={problem ? true : undefined} />;
      break;
    case 'number':
    case 'integer':
      input = <input id={id} inputMode={field.kind === 'number' ? 'decimal' : 'numeric'} value={text} onChange={(e) => set(e.target.value)} />;
      break;
    default:
      input = <input id={id} value={text} spellCheck={false} onChange={(e) => set(e.target.value)} aria-invalid={problem ? true : undefined} />;
  }
  return (
    <div className="step-field-block">
      <label htmlFor={id}>{label}</label>
      {input}
      {field.help && <span className="muted small">{field.help}</span>}
      {problem && <span className="error small" role="alert">{problem}</span>}
    </div>
  );
}
