/**
 * A table's columns described once, as one object: each key is a column, each value carries the column's
 * TypeScript type and, for a column read from a joined table, the expression it is read from. The row type and
 * the statements' column lists derive from that object; the lists are strings built once, at module load.
 */
declare const columnType: unique symbol;

export interface Column<T> {
  /** Never set: it only carries T to `RowOf`. */
  readonly [columnType]?: T;
  /** The expression a joined column is read from (`et.name`); absent for the table's own columns. */
  readonly from?: string;
}

export type Columns = Readonly<Record<string, Column<unknown>>>;

export function column<T>(from?: string): Column<T> {
  return from === undefined ? {} : { from };
}

/** The row a select of these columns returns. */
export type RowOf<C extends Columns> = { -readonly [K in keyof C]: C[K] extends Column<infer T> ? T : never };

export function columnNames<C extends Columns>(columns: C): (keyof C & string)[] {
  return Object.keys(columns);
}

/** The select list of these columns: `alias.column` for the table's own, `expression as column` for a joined one. */
export function selectList(alias: string, columns: Columns): string {
  return Object.entries(columns)
    .map(([name, { from }]) => (from === undefined ? `${alias}.${name}` : `${from} as ${name}`))
    .join(', ');
}

/** A RETURNING (or unqualified select) list of the table's own columns. */
export function returningList(columns: Columns): string {
  return columnNames(columns).join(', ');
}

/**
 * `insert into table (columns) values (expressions)` from one object: each key a column, each value the SQL it
 * is written from (`?` for a parameter), so a column and its value cannot drift apart.
 */
export function insertInto(table: string, values: Readonly<Record<string, string>>): string {
  return `insert into ${table} (${Object.keys(values).join(', ')})\n       values (${Object.values(values).join(', ')})`;
}
