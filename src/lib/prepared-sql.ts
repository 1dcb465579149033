import type { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';

/**
 * Hot reads as named prepared statements. MikroORM writes each parameter into the SQL text, so PostgreSQL would
 * parse and plan every call afresh; a named statement with `$n` placeholders is planned once per connection.
 * Outside a transaction it goes to the ORM's own pg pool; inside one, to the transaction's connection (Kysely
 * passes pg's `{ name, text }` query config through). Never write values into the text: each distinct text is a
 * prepared statement on every connection. A text past MAX_STATEMENTS runs unprepared.
 */
const MAX_STATEMENTS = 256;
/** With ':' and up to eight digits of sequence, a name fits PostgreSQL's 63 bytes. */
const MAX_LABEL = 54;

interface Statement {
  name: string;
  text: string;
}

/** What is used here of MikroORM's transaction context for PostgreSQL: a Kysely transaction. */
interface TransactionContext {
  getExecutor(): {
    provideConnection<R>(consume: (connection: { executeQuery<Row>(query: object): Promise<{ rows: Row[] }> }) => Promise<R>): Promise<R>;
  };
}

const statements = new Map<string, Statement>();
let sequence = 0;

export async function executePrepared<T>(em: EntityManager, label: string, sql: string, params: readonly unknown[]): Promise<T[]> {
  const statement = statementFor(label, sql);
  if (!statement) return em.execute<T[]>(sql, [...params]);
  return execute<T>(em, statement, params);
}

/**
 * A statement whose text varies from call to call (a series' writes, one expression per occurrence) with bound
 * parameters, parsed and planned for this call only: kept as a prepared statement, each text would take a place
 * of MAX_STATEMENTS and stay on every connection.
 */
export async function executeOnce<T>(em: EntityManager, sql: string, params: readonly unknown[]): Promise<T[]> {
  return execute<T>(em, { text: numberPlaceholders(sql) }, params);
}

async function execute<T>(em: EntityManager, statement: { name?: string; text: string }, params: readonly unknown[]): Promise<T[]> {
  const transaction = em.getTransactionContext() as TransactionContext | undefined;
  if (transaction) {
    // Kysely's compiled query, its text replaced by pg's query config: a fresh one per call, pg writes the values into it.
    const query = {
      sql: { name: statement.name, text: statement.text },
      parameters: [...params],
      query: { kind: 'RawNode', sqlFragments: [statement.text], parameters: [] },
      queryId: { queryId: statement.name ?? 'unnamed' },
    };
    const result = await transaction.getExecutor().provideConnection((connection) => connection.executeQuery<T>(query));
    return result.rows;
  }
  const pool = await (em.getConnection() as PostgreSqlConnection).getNativeClient();
  const result = await pool.query({ name: statement.name, text: statement.text, values: [...params] });
  return result.rows as T[];
}

function statementFor(label: string, sql: string): Statement | undefined {
  const known = statements.get(sql);
  if (known || statements.size >= MAX_STATEMENTS) return known;
  // PostgreSQL keeps a statement's name to 63 bytes: a longer one would collide with another of the same beginning.
  const statement = { name: `${label.slice(0, MAX_LABEL)}:${++sequence}`, text: numberPlaceholders(sql) };
  statements.set(sql, statement);
  return statement;
}

/** `?` → `$1`, `$2`… outside single-quoted literals (the form every SQL text here uses). */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  let quoted = false;
  let out = '';
  for (const char of sql) {
    if (char === "'") quoted = !quoted;
    out += char === '?' && !quoted ? `$${++n}` : char;
  }
  return out;
}
