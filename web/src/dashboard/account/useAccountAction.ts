import { useState } from 'react';
import { errorMessage, fieldErrors } from '../../api.ts';
import { useSession } from '../session.ts';

/**
 * The state of one account settings form: busy while its action runs, then what it did (a sentence) or what went
 * wrong, said under the field the server named when the form shows that field, above the buttons otherwise.
 */
export function useAccountAction(fieldsShown: readonly string[]) {
  const { onSessionLost } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [done, setDone] = useState<string | null>(null);
  const run = async (action: () => Promise<string | null>) => {
    setBusy(true);
    setError(null);
    setFields({});
    setDone(null);
    try {
      setDone(await action());
    } catch (caught) {
      onSessionLost(caught);
      const byField = fieldErrors(caught);
      setFields(byField);
      if (!fieldsShown.some((field) => byField[field])) setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };
  /** Forgets the last outcome (the person is mending what it said). */
  const clear = () => {
    setError(null);
    setFields({});
    setDone(null);
  };
  return { busy, error, fields, done, run, clear };
}
