/** One step of the PostgreSQL schema; ../migrate.ts applies them in order. */
export interface Migration {
  /** Position in the sequence, from 1; recorded in schema_migrations once applied. */
  version: number;
  name: string;
  sql: string;
}
