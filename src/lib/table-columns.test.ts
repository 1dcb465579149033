import { describe, expect, it } from 'vitest';
import { column, insertInto, returningList, type RowOf, selectList } from './table-columns.ts';

const COLUMNS = {
  id: column<string>(),
  ends_at: column<string | null>(),
  kind_name: column<string>('k.name'),
};

describe('table columns', () => {
  it('select list: own columns under the alias, joined ones from their expression, in the order described', () => {
    expect(selectList('t', COLUMNS)).toBe('t.id, t.ends_at, k.name as kind_name');
  });

  it('returning list: the bare names', () => {
    expect(returningList({ id: column<string>(), ends_at: column<string | null>() })).toBe('id, ends_at');
  });

  it('insert: each column beside its value', () => {
    expect(insertInto('thing', { id: '?', state: "'new'", tags: '?::jsonb' })).toBe(
      "insert into thing (id, state, tags)\n       values (?, 'new', ?::jsonb)",
    );
  });

  it('row type: one property per column, of its type', () => {
    const row: RowOf<typeof COLUMNS> = { id: 'a', ends_at: null, kind_name: 'k' };
    // @ts-expect-error a column's type is kept: `id` is not nullable
    const wrong: RowOf<typeof COLUMNS> = { id: null, ends_at: null, kind_name: 'k' };
    expect([row, wrong]).toHaveLength(2);
  });
});
