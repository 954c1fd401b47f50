import { describe } from 'vitest';
import { openFreshPostgresStore } from '../../support/fresh-postgres-store.ts';
import { skipPostgres } from '../../support/postgres.ts';
import { describeKeyRequestStoreContract } from '../key-request-store-contract.ts';

describe.skipIf(skipPostgres)('PostgreSQL', () => {
  describeKeyRequestStoreContract('PostgresKeyRequestStore', openFreshPostgresStore);
});
