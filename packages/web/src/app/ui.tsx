import { cloneElement, useEffect, useId, useRef, useState, type FormEvent, type InputHTMLAttributes, type ReactElement, type ReactNode } from 'react';
import { errorMessage } from './useLoad';

/** A modal dialog: labelled by its title, closed with Escape or the close button. */
export function Dialog({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const first = ref.current?.querySelector<HTMLElement>('input, select, textarea, button:not([data-close])');
    first?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      previous?.focus();
    };
  }, [onClose]);
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={ref} className={`dialog${wide ? ' dialog-wide' : ''}`} role="dialog" aria-modal="true" aria-labelledby={titleId}>
        <header className="dialog-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon-button" data-close aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        {children}
      </div>
    </div>
  );
}

/** Runs an async action, keeping its pending state and error message for a form. */
export function useAction() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<void>) => {
    setPending(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setPending(false);
    }
  };
  return { pending, error, run, setError };
}

export function ErrorMessage({ message, onRetry }: { message: string | null; onRetry?: () => void }) {
  if (!message) return null;
  return (
    <div className="error" role="alert">
      <span>{message}</span>
      {onRetry && (
        <button type="button" className="button button-small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** A dialog asking for one line of text (rename, new tag). */
export function PromptDialog(props: { title: string; label: string; initial?: string; submitLabel: string; onSubmit: (value: string) => Promise<void>; onClose: () => void }) {
  const [value, setValue] = useState(props.initial ?? '');
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await props.onSubmit(value.trim());
      props.onClose();
    });
  };
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form onSubmit={submit} className="form">
        <TextField label={props.label} value={value} onChange={(e) => setValue(e.target.value)} required maxLength={500} />
        <ErrorMessage message={action.error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={action.pending || !value.trim()}>
            {props.submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** A yes/no dialog for destructive actions. */
export function ConfirmDialog(props: { title: string; message: ReactNode; confirmLabel: string; onConfirm: () => Promise<void>; onClose: () => void }) {
  const action = useAction();
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <p className="dialog-text">{props.message}</p>
      <ErrorMessage message={action.error} />
      <div className="dialog-actions">
        <button type="button" className="button button-quiet" onClick={props.onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={action.pending}
          onClick={() =>
            void action.run(async () => {
              await props.onConfirm();
              props.onClose();
            })
          }
        >
          {props.confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

export const formatDate = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
};

/**
 * A labelled control. The label points at the control by id (not by wrapping it), so the control's
 * accessible name is the label alone, without the selected option's text.
 */
export function Field({ label, className = '', children }: { label: string; className?: string; children: ReactElement<{ id?: string }> }) {
  const id = useId();
  return (
    <div className={`field ${className}`}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id })}
    </div>
  );
}

/** A labelled text input; the label is what tests and screen readers find it by. */
export function TextField({ label, grow, ...input }: { label: string; grow?: boolean } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field label={label} className={grow ? 'field-grow' : ''}>
      <input {...input} />
    </Field>
  );
}

export function Brand({ large }: { large?: boolean }) {
  return (
    <div className={`brand${large ? ' brand-large' : ''}`}>
      <span className="brand-mark" aria-hidden="true" />
      Studio
    </div>
  );
}

export { DataTable, type Column } from './DataTable';
