import { type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes, useId } from 'react';

/** What is said around a control: its label, a hint under it, and the error that is to be mended. */
interface FieldWords {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  /** Takes the rest of a row of filters. */
  grow?: boolean;
}

/** The ids of the hint and the error that describe the control (screen readers read them after the label). */
function describedBy(id: string, { hint, error }: FieldWords): string | undefined {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

/** A labelled form control: the label, the control (whose id is `id`), then its hint and its error. */
export function Field(props: FieldWords & { id: string; children: ReactNode }) {
  const { id, hint, error } = props;
  return (
    <div className={props.grow ? 'field grow' : 'field'}>
      <label htmlFor={id} className="label">
        {props.label}
      </label>
      {props.children}
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> & { multiline?: false };
type TextareaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> & { multiline: true };

/** A labelled text input (any `type` that is typed into, or a date, time or color) or, `multiline`, a textarea. */
export function TextField(props: FieldWords & (InputProps | TextareaProps)) {
  const { label, hint, error, grow, ...control } = props;
  const words = { label, hint, error, grow };
  const id = useId();
  const described = { 'aria-describedby': describedBy(id, words), 'aria-invalid': error ? true : undefined };
  if (control.multiline) {
    const { multiline: _multiline, className = 'textarea', ...textarea } = control;
    return (
      <Field id={id} {...words}>
        <textarea id={id} className={className} {...described} {...textarea} />
      </Field>
    );
  }
  const { multiline: _multiline, className = 'input', ...input } = control;
  return (
    <Field id={id} {...words}>
      <input id={id} className={className} {...described} {...input} />
    </Field>
  );
}

/** A labelled select. */
export function SelectField(props: FieldWords & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'>) {
  const { label, hint, error, grow, className = 'select', ...select } = props;
  const words = { label, hint, error, grow };
  const id = useId();
  return (
    <Field id={id} {...words}>
      <select id={id} className={className} aria-describedby={describedBy(id, words)} {...select} />
    </Field>
  );
}
