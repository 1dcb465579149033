import { type ReactNode, type RefObject, useCallback, useEffect, useId, useRef, useState } from 'react';
import { Field } from './fields.tsx';

export function Spinner({ label }: { label: string }) {
  return (
    <div className="loading" role="status">
      <div className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

export function ErrorNotice({ children }: { children: ReactNode }) {
  return (
    <div className="notice notice-error" role="alert">
      {children}
    </div>
  );
}

/** "X could not be loaded" with the reason and a button that asks again. */
export function LoadFailed({ what, reason, onRetry }: { what: ReactNode; reason: string; onRetry: () => void }) {
  return (
    <ErrorNotice>
      {what} could not be loaded. {reason}{' '}
      <button type="button" className="btn btn-link" onClick={onRetry}>
        Try again
      </button>
    </ErrorNotice>
  );
}

export function BrandMark() {
  return (
    <svg className="brand-mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" fill="#1d4ed8" />
      <rect x="7" y="9" width="18" height="16" rx="3" fill="none" stroke="#fff" strokeWidth="2.2" />
      <path d="M7 14h18M12 6v5M20 6v5" stroke="#fff" strokeWidth="2.2" strokeLinecap="round" />
    </svg>
  );
}

async function writeClipboard(text: string, fallbackTarget: HTMLElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard API unavailable (plain http on a non-local host): select the text and use the old command.
    if (!fallbackTarget) return false;
    if (fallbackTarget instanceof HTMLInputElement) {
      fallbackTarget.focus();
      fallbackTarget.select();
    } else {
      window.getSelection()?.selectAllChildren(fallbackTarget);
    }
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

function useCopyStatus(): [string, (ok: boolean) => void] {
  const [status, setStatus] = useState('');
  useEffect(() => {
    if (!status) return;
    const timer = setTimeout(() => setStatus(''), 4000);
    return () => clearTimeout(timer);
  }, [status]);
  return [status, (ok) => setStatus(ok ? 'Copied' : 'Press Ctrl+C (or ⌘C) to copy the selected text')];
}

/** A read-only value with a Copy button; the result is announced to screen readers. */
export function CopyField({ value, label }: { value: string; label: string }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [status, report] = useCopyStatus();
  const id = useId();
  return (
    <Field id={id} label={label}>
      <div className="copy-field">
        <input
          id={id}
          ref={inputRef}
          className="input"
          readOnly
          value={value}
          spellCheck={false}
          autoComplete="off"
          onFocus={(event) => event.currentTarget.select()}
        />
        <button
          type="button"
          className="btn"
          onClick={async () => report(await writeClipboard(value, inputRef.current))}
        >
          <CopyIcon />
          Copy<span className="visually-hidden"> {label}</span>
        </button>
        <span className="copy-status" role="status">
          {status}
        </span>
      </div>
    </Field>
  );
}

/** A short value shown as code with a small Copy button, for lists (e.g. an app's client ID). */
export function CopyInline({ value, label }: { value: string; label: string }) {
  const codeRef = useRef<HTMLElement>(null);
  const [status, report] = useCopyStatus();
  return (
    <span className="copy-inline">
      <code ref={codeRef}>{value}</code>
      <button
        type="button"
        className="btn btn-small"
        aria-label={`Copy ${label}`}
        onClick={async () => report(await writeClipboard(value, codeRef.current))}
      >
        <CopyIcon />
        Copy
      </button>
      <span className="copy-status" role="status">
        {status}
      </span>
    </span>
  );
}

function CopyIcon() {
  return (
    <svg width="15" height="15" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <rect x="9" y="9" width="12" height="12" rx="2" />
      <path d="M5 15H4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1h10a1 1 0 0 1 1 1v1" />
    </svg>
  );
}

/**
 * A secret shown exactly once (a new token or client secret): focus moves to it so keyboard and screen
 * reader users land on it, and it says plainly that it cannot be shown again.
 */
export function SecretReveal(props: {
  title: string;
  fields: { label: string; value: string }[];
  warning: string;
  onDone: () => void;
}) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  return (
    <section className="reveal" aria-labelledby="secret-reveal-title" data-testid="secret-reveal">
      <h3 id="secret-reveal-title" ref={headingRef} tabIndex={-1}>
        {props.title}
      </h3>
      <p className="reveal-warning">
        <WarningIcon />
        <span>{props.warning}</span>
      </p>
      {props.fields.map((field) => (
        <CopyField key={field.label} label={field.label} value={field.value} />
      ))}
      <div>
        <button type="button" className="btn btn-primary" onClick={props.onDone}>
          I have saved it
        </button>
      </div>
    </section>
  );
}

export function WarningIcon() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <path d="M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0Z" />
      <path d="M12 9v4M12 17h.01" strokeLinecap="round" />
    </svg>
  );
}

/** A destructive action that asks once more, in place, before it runs. */
export function ConfirmAction(props: {
  label: string;
  confirmLabel: string;
  question: string;
  /** Names the thing acted on, for screen readers ("Revoke token CI deploy"). */
  accessibleName: string;
  onConfirm: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  // After the question was asked, focus goes to Cancel; after Cancel, back to the button that asked.
  const asked = useRef(false);
  useEffect(() => {
    if (asking) cancelRef.current?.focus();
    else if (asked.current) triggerRef.current?.focus();
    asked.current = asking;
  }, [asking]);
  if (!asking) {
    return (
      <button
        type="button"
        ref={triggerRef}
        className="btn btn-danger btn-small"
        onClick={() => setAsking(true)}
        aria-label={props.accessibleName}
      >
        {props.label}
      </button>
    );
  }
  return (
    // biome-ignore lint/a11y/useSemanticElements: a group of two buttons, not a form field set
    <div className="confirm" role="group" aria-label={props.accessibleName}>
      <span className="confirm-text">{props.question}</span>
      <button
        type="button"
        className="btn btn-danger-solid btn-small"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await props.onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {busy ? 'Working…' : props.confirmLabel}
      </button>
      <button
        type="button"
        className="btn btn-small"
        ref={cancelRef}
        disabled={busy}
        onClick={() => setAsking(false)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setAsking(false);
        }}
      >
        Cancel
      </button>
    </div>
  );
}

/**
 * Returns a ref and a function that moves focus to the ref's element after the next render: for when the
 * focused control disappears (a form closed, a secret dismissed) and focus must not fall back to the page.
 */
export function useFocusAfterRender<T extends HTMLElement>(): [RefObject<T | null>, () => void] {
  const ref = useRef<T>(null);
  const [pending, setPending] = useState(false);
  useEffect(() => {
    if (!pending) return;
    ref.current?.focus();
    setPending(false);
  }, [pending]);
  return [ref, () => setPending(true)];
}

/** A set of chosen values (checkbox groups): the set, a toggle for one value, and a setter for all at once. */
export function useChoiceSet<T>(initial: Iterable<T>): [Set<T>, (value: T, on: boolean) => void, (values: Iterable<T>) => void] {
  const [chosen, setChosen] = useState<Set<T>>(() => new Set(initial));
  const toggle = useCallback((value: T, on: boolean) => {
    setChosen((current) => {
      const next = new Set(current);
      if (on) next.add(value);
      else next.delete(value);
      return next;
    });
  }, []);
  const replace = useCallback((values: Iterable<T>) => setChosen(new Set(values)), []);
  return [chosen, toggle, replace];
}
